"""``report TRACE.json|LOG|LOGDIR``: a saved trace's page, or torch's TORCH_TRACE logs as our trace, page and summary."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tracers.analysis.report_model import build_report
from tracers.report.links import chapter_links
from tracers.report.save import ReportUnavailable, write_page
from tracers.terminal.summary import render_report, style_for
from tracers.torchlogs import frames
from tracers.torchlogs.load import LoadedLogs, LogError, load_logs, looks_like_log
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.chrome import TraceFileError, load, read_back, serialized
from tracers.tracefile.names import inside, logs_merged_file_name
from tracers.tracefile.validation import Dropped
from tracers.vocabulary.exported import export_line, export_of
from tracers.vocabulary.printable import printable_value

from .browser import show
from .inputs import not_a_trace
from .parsing import positive
from .say import say

HELP = "a saved trace, or torch's TORCH_TRACE logs: the summary and an HTML page"
# ranks/ (merge, divergence, the ranks page) is imported where a merged trace or several ranks are read: one log's
# report does without it (a quarter of its imports, issue 43's start-up).


def add_arguments(report: argparse.ArgumentParser) -> None:
    """A trace, a merge, or TORCH_TRACE logs; where the page goes; which run of a log directory; source roots."""
    report.description = (
        "Write TRACE.html (stage timeline, call tree, counts, graphs, guards, break and recompile "
        "reasons, generated code; spans link to the walkthrough's chapters and torch's source at "
        "the commit the trace was recorded with). Works offline; any trace this tool wrote, "
        "including ones recorded on another machine. A TORCH_TRACE log (or a directory of rank "
        "logs) becomes this tool's trace file, its page and summary (ranks merged, with divergence).")
    report.add_argument("trace_file", metavar="TRACE.json",
                        help="a trace this tool wrote, a merged one, or torch's own TORCH_TRACE log "
                             "(dedicated_log_torch_trace_*.log, gzip too) or a directory of them, one per rank")
    report.add_argument("--out", metavar="DIR", help="where the page goes (default: beside the trace)")
    report.add_argument("--open", action="store_true", help="open the page in a browser")
    report.add_argument("--run", metavar="N", type=positive,
                        help="of several runs, read the N-th, 1 the earliest (default: the latest): in a log file "
                             "holding several (logs concatenated, told apart by the process that wrote each), its "
                             "N-th run; in a directory with several logs of a rank, each rank's N-th log by when it "
                             "starts")
    report.add_argument("--site", metavar="URL_OR_DIR",
                        help="walkthrough site for chapter links (default: build/html if built here, else the "
                             "walkthrough built for the trace's torch in the user cache)")
    report.add_argument("--source-root", dest="source_roots", action="append", metavar="DIR",
                        help="a directory whose Python files a TORCH_TRACE log may name, read for the qualified "
                             "names of compiled functions (repeatable; the current directory and the installed "
                             "torch are allowed without it; no other file a log names is opened)")


def run(args: argparse.Namespace) -> int:
    """0 written; 2 with one line saying why not."""
    path, out_dir = Path(args.trace_file), Path(args.out) if args.out else None
    if looks_like_log(path):  # torch's own TORCH_TRACE log, or a directory of them (one per rank)
        return report_logs(path, out_dir, args.open, args.site, args.run, source_roots=tuple(args.source_roots or ()))
    if _same_file((out_dir or path.parent) / f"{path.stem}.html", path):  # the page's name (report/save.py)
        say("report", f"{path}: the page would be written over this input; --out DIR writes it elsewhere")
        return 2
    from tracers.ranks.merge import MergeError, is_merged_file
    from tracers.ranks.output import merged_report
    from tracers.ranks.page import PageUnavailable

    dropped, summary = Dropped(), None
    try:
        if is_merged_file(path):  # a distributed run's merge: the multi-rank page and the summary the merge printed
            page, summary = merged_report(path, out_dir, args.site, dropped)
        else:
            wrong = not_a_trace(path)  # a log of another kind, or binary data: said as such, not "invalid JSON"
            if wrong:
                raise TraceFileError(wrong)
            trace = load(path, dropped)
            _read_warning(path, dropped)
            dropped.clear()
            report = build_report(trace)
            page = write_page(report, path, out_dir, args.site)
            # the same summary as trace printed, its findings linked to the same chapters
            summary = render_report(report, style_for(sys.stderr), [str(page)], None,
                                    chapter_links(args.site, trace.info.torch_version))
    except (TraceFileError, MergeError, ReportUnavailable, PageUnavailable) as error:
        say("report", error)
        return 2
    except OSError as error:
        say("report", f"cannot write the page for {path}: {error.strerror or error}")
        return 2
    _read_warning(path, dropped)
    if summary is not None:
        print(summary, file=sys.stderr)
    print(printable_value(page))
    return _maybe_open(page, args.open)


def _read_warning(path: Path, dropped: Dropped) -> None:
    if dropped:
        say("report", f"warning: {path}: left out what could not be used: {dropped.describe()}")


def report_logs(path: Path, out_dir: Path | None, open_page: bool = False, site: str | None = None,
                run: int | None = None, source_roots: tuple[str, ...] = ()) -> int:
    """0 written; 2 nothing readable (one line says why). What reading noticed: a warning, one note a line.
    ``run``: of a file's several runs, or of a rank's several logs in the directory, the run-th (default: the latest).
    ``source_roots``: directories whose sources a log may name (``--source-root``; frames.py)."""
    try:
        loaded = load_logs(path, run=run, roots=frames.source_roots(source_roots))
    except LogError as error:
        say("report", error)
        return 2
    _say_notes(loaded.notes())
    directory = out_dir or (path if path.is_dir() else path.parent)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        say("report", f"cannot write into {directory}: {error.strerror or error}")
        return 2
    if loaded.ranked:
        from tracers.ranks.output import write_run
        from tracers.torchlogs.merged_run import from_log_line, merged_run

        name = path.resolve().name if path.is_dir() else _stem(path)
        say("report", from_log_line(loaded))
        for log in loaded.logs:  # a torch.export log among them (draft_export writes one of its own) says so
            export = export_of(log.trace.info.from_log)
            if export:
                say("report", f"{log.source}: {export_line(export)}")
        run = merged_run(loaded, name)
        target = inside(directory, logs_merged_file_name(name))
        status = write_run(run, target, page=True, quiet=False, site=site)
        page = target.with_suffix(".html")
        if status == 0 and page.exists():
            print(printable_value(page))
            return _maybe_open(page, open_page)
        return status
    target = inside(directory, f"{_stem(Path(loaded.logs[0].source))}.json")
    if _same_file(target, path) or _same_file(target.with_suffix(".html"), path):
        say("report", f"{path}: its trace or page would be written over this log; --out DIR writes them elsewhere")
        return 2
    return _single(loaded, target, site, open_page)


def _say_notes(notes: tuple[str, ...]) -> None:
    """One note on the warning's line; several under it, a line each (each made printable by the reader)."""
    if len(notes) == 1:
        say("report", f"warning: {notes[0]}")
    elif notes:
        say("report", "warning: how the logs were read:")
        print("\n".join(f"  {note}" for note in notes), file=sys.stderr)


def _same_file(output: Path, given: Path) -> bool:
    """Whether writing ``output`` would replace the input ``given`` (the same file, by any name or link)."""
    try:
        return output.exists() and os.path.samefile(output, given)
    except OSError:
        return False


def _single(loaded: LoadedLogs, target: Path, site: str | None, open_page: bool) -> int:
    try:
        text = serialized(loaded.logs[0].trace)
        write_text_atomic(target, text)
        report = build_report(read_back(text, target))  # as the file has it: machine paths scrubbed, like a live trace
        written = [str(target)]
        try:
            page = write_page(report, target, target.parent, site)
            written.append(str(page))
        except ReportUnavailable as error:
            page = None
            say("report", f"no HTML page: {error}")
    except OSError as error:
        say("report", f"cannot write {target}: {error.strerror or error}")
        return 2
    print(render_report(report, style_for(sys.stderr), written, None,
                        chapter_links(site, report.trace.info.torch_version)), file=sys.stderr)
    if page is not None:
        print(printable_value(page))
        return _maybe_open(page, open_page)
    return 0


def _maybe_open(page: Path, open_page: bool) -> int:
    return show(page) if open_page else 0


def _stem(path: Path) -> str:
    """``dedicated_log_torch_trace_rank_0_ab12`` of ``….log`` or ``….log.gz``."""
    name = path.name
    for suffix in (".gz", ".log"):
        name = name.removesuffix(suffix)
    return name
