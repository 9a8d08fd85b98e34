"""TORCH_TRACE logs of several ranks or processes as one merged run, as ``merge`` builds one from rank traces."""

from __future__ import annotations

from tracers.ranks.clock import Alignment
from tracers.ranks.merge import MergedRun, RankTrace

from .load import LoadedLog, LoadedLogs

# torch stamps its regions with the wall clock (time since the epoch), on every rank alike
BY_LOG_CLOCK = ("torch's own timestamps: every rank's regions carry the wall clock, so ranks of several hosts "
                "are only as aligned as those hosts' clocks (NTP)")


def merged_run(loaded: LoadedLogs, name: str) -> MergedRun:
    """The logs as one run, as ``merge`` builds it from rank traces (divergence is then the same); logs
    without a rank (processes of a run that was not distributed) follow the ranks, named by their pid."""
    by_rank = {log.rank: log for log in loaded.logs if log.rank is not None}
    world = max(by_rank, default=-1) + 1
    slots = [RankTrace(rank, by_rank[rank].trace, by_rank[rank].source) if rank in by_rank
             else RankTrace(rank, None, "", "no log in the directory") for rank in range(world)]
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
