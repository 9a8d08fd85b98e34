"""`python -m tracers report LOG_OR_DIR`: torch's TORCH_TRACE logs as our trace file, its page and summary; ranks merged."""

from __future__ import annotations

import sys
from pathlib import Path

from tracers.analysis.trace_facts import analyze
from tracers.ranks.clock import Alignment
from tracers.ranks.merge import MergedRun, RankTrace
from tracers.ranks.merge_command import write_run
from tracers.report.save import ReportUnavailable, open_in_browser, write_report
from tracers.terminal.summary import render, style_for
from tracers.tracefile.chrome import load, write_atomic
from tracers.tracefile.names import logs_merged_file_name
from tracers.vocabulary.exported import export_line, export_of

from . import frames
from .load import LoadedLog, LoadedLogs, LogError, load_logs

# torch stamps its regions with the wall clock (time since the epoch), on every rank alike
BY_LOG_CLOCK = ("torch's own timestamps: every rank's regions carry the wall clock, so ranks of several hosts "
                "are only as aligned as those hosts' clocks (NTP)")


def merged_run(loaded: LoadedLogs, name: str) -> MergedRun:
    """The logs as one run, as ``merge`` builds it from rank traces (divergence is then the same); logs
    without a rank (processes of a run that was not distributed) follow the ranks, named by their pid."""
    by_rank = {log.rank: log for log in loaded.logs if log.rank is not None}
    world = max(by_rank, default=-1) + 1
    slots = [RankTrace(rank, by_rank[rank].trace, by_rank[rank].source) if rank in by_rank
             else RankTrace(rank, None, "", "no log for this rank in the directory") for rank in range(world)]
    unranked = [log for log in loaded.logs if log.rank is None]
    for slot, (log, label) in enumerate(zip(unranked, _process_labels(unranked)), start=world):
        slots.append(RankTrace(slot, log.trace, log.source, None, label))
    device = "cuda" if any(log.trace.info.device == "cuda" for log in loaded.logs) else "cpu"
    return MergedRun(name, device, "unknown", world, tuple(slots),
                     Alignment({slot.rank: 0 for slot in slots}, BY_LOG_CLOCK),
                     "ranks" if len(slots) == world else "processes")


# One process may write two logs into one directory (draft_export writes its own beside the compile log): each
# then says what it is (torch.export or torch.compile), else which file it is, never "process N" twice.
def _process_labels(logs: list[LoadedLog]) -> list[str]:
    """``process 4242`` for each log without a rank, told apart where one process wrote several."""
    pids = [(log.trace.info.from_log or {}).get("pid") for log in logs]
    labels = [f"process {pid}" if pid else log.source for log, pid in zip(logs, pids)]
    for index, (log, pid) in enumerate(zip(logs, pids)):
        if pid and pids.count(pid) > 1:
            export = (log.trace.info.from_log or {}).get("export")
            labels[index] += " (torch.export)" if export and not export.get("with_compiles") else " (torch.compile)"
    return [f"{label.split(' (')[0]} ({log.source})" if labels.count(label) > 1 else label
            for log, label in zip(logs, labels)]


def from_log_line(loaded: LoadedLogs) -> str:
    """Which torch wrote the logs, and the gist of what a log cannot give (the page lists it all)."""
    writers = sorted({str((log.trace.info.from_log or {}).get("written_by")) for log in loaded.logs})
    return (f"read from TORCH_TRACE log{'s' if len(loaded.logs) > 1 else ''} written by {', '.join(writers)}: "
            "the timeline is torch's own timed regions (no hook spans below them), no executed lines, "
            "no totals check against torch's counters")


def report_logs(path: Path, out_dir: Path | None, open_page: bool = False, site: str | None = None,
                run: int | None = None, source_roots: tuple[str, ...] = ()) -> int:
    """0 written; 2 nothing readable (one line says why). Damage and foreign files: one warning line.
    ``run``: of ranks with several logs in the directory, the run-th by start time (default: the latest).
    ``source_roots``: directories whose sources a log may name (``--source-root``; frames.py)."""
    try:
        loaded = load_logs(path, run=run, roots=frames.source_roots(source_roots))
    except LogError as error:
        print(f"report: {error}", file=sys.stderr)
        return 2
    warning = loaded.warning()
    if warning:
        print(f"report: warning: {warning}", file=sys.stderr)
    directory = out_dir or (path if path.is_dir() else path.parent)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        print(f"report: cannot write into {directory}: {error.strerror or error}", file=sys.stderr)
        return 2
    if loaded.ranked:
        name = path.resolve().name if path.is_dir() else _stem(path)
        print(f"report: {from_log_line(loaded)}", file=sys.stderr)
        for log in loaded.logs:  # a torch.export log among them (draft_export writes one of its own) says so
            export = export_of(log.trace.info.from_log)
            if export:
                print(f"report: {log.source}: {export_line(export)}", file=sys.stderr)
        run = merged_run(loaded, name)
        target = directory / logs_merged_file_name(name)
        status = write_run(run, target, page=True, quiet=False, site=site)
        page = target.with_suffix(".html")
        if status == 0 and page.exists():
            print(page)
            _maybe_open(page, open_page)
        return status
    return _single(loaded, directory / f"{_stem(Path(loaded.logs[0].source))}.json", site, open_page)


def _single(loaded: LoadedLogs, target: Path, site: str | None, open_page: bool) -> int:
    try:
        write_atomic(loaded.logs[0].trace, target)
        trace = load(target)  # as the file has it: machine paths scrubbed, like a live trace
        facts = analyze(trace)
        written = [str(target)]
        try:
            page = write_report(trace, target, target.parent, site, facts)
            written.append(str(page))
        except ReportUnavailable as error:
            page = None
            print(f"report: no HTML page: {error}", file=sys.stderr)
    except OSError as error:
        print(f"report: cannot write {target}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(render(trace, facts, style_for(sys.stderr), written), file=sys.stderr)
    if page is not None:
        print(page)
        _maybe_open(page, open_page)
    return 0


def _maybe_open(page: Path, open_page: bool) -> None:
    if open_page:
        open_in_browser(page)


def _stem(path: Path) -> str:
    """``dedicated_log_torch_trace_rank_0_ab12`` of ``….log`` or ``….log.gz``."""
    name = path.name
    for suffix in (".gz", ".log"):
        name = name.removesuffix(suffix)
    return name
