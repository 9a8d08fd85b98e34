"""A log file or a directory of rank logs loaded as traces; damage and foreign files summed up in one line."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from tracers.tracefile.events import Trace

from .convert import LogConverter
from .files import LogFile, find_logs, is_log_name, rank_in_name
from .records import Problems, is_record_line, open_log, read_records


class LogError(Exception):
    """Nothing readable: no log at the path, or none with a single record; one line says why."""


@dataclass(frozen=True)
class LoadedLog:
    trace: Trace
    rank: int | None
    source: str  # the log's file name
    problems: Problems
    missing_kinds: tuple[str, ...]


@dataclass(frozen=True)
class LoadedLogs:
    logs: tuple[LoadedLog, ...]  # readable ones, by rank
    foreign: tuple[str, ...] = ()  # other files in the directory
    unreadable: tuple[str, ...] = ()  # logs without a single record
    left_out: tuple[str, ...] = ()  # an older log of a rank that has a newer one (an earlier run in the same dir)

    @property
    def ranked(self) -> bool:
        """Several processes' logs, or a rank's: merged (logs without a rank as processes named by their pid)."""
        return len(self.logs) > 1 or any(log.rank is not None for log in self.logs)

    def warning(self) -> str | None:
        """Everything odd about the input in one line, or None."""
        parts = []
        for log in self.logs:
            if log.problems:
                parts.append(f"{log.source}: {log.problems.describe()}")
            if log.missing_kinds:
                parts.append(f"{log.source}: no {', '.join(log.missing_kinds)} records (an older torch, or cut short)")
        if self.unreadable:
            parts.append(f"{_count(len(self.unreadable), 'log')} with no readable record ({', '.join(self.unreadable)})")
        if self.left_out:
            parts.append(f"{_count(len(self.left_out), 'older log')} of a rank left out ({', '.join(self.left_out)})")
        if self.foreign:
            shown = ", ".join(self.foreign[:5]) + (", …" if len(self.foreign) > 5 else "")
            parts.append(f"{_count(len(self.foreign), 'foreign file')} ignored ({shown})")
        return "; ".join(parts) or None


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def looks_like_log(path: Path) -> bool:
    """Whether ``path`` is a TORCH_TRACE log or a directory that may hold some (not one of our trace files)."""
    if path.is_dir():
        return True
    if is_log_name(path.name):
        return True
    try:
        with open_log(path) as stream:
            first = stream.readline(4096).decode("utf-8", "replace")
    except (OSError, EOFError, zlib.error):
        return False
    return is_record_line(first)


def load_log(path: Path, keep_code: bool = True) -> LoadedLog:
    """One log read as a trace, streaming (memory bounded by the trace kept, not the log)."""
    problems = Problems()
    converter = LogConverter(path.name, problems, keep_code)
    converter.feed(read_records(path, problems))
    converted = converter.finish(path.name)
    rank = converted.rank if converted.rank is not None else rank_in_name(path.name)
    return LoadedLog(converted.trace, rank, path.name, problems, converted.missing_kinds)


def load_logs(path: Path, keep_code: bool = True) -> LoadedLogs:
    """A log file, or every log in a directory; raises LogError when nothing in it can be read."""
    if not path.exists():
        raise LogError(f"{path}: no such file or directory")
    if path.is_dir():
        found = find_logs(path)
        files, foreign = found.logs, found.foreign
    else:
        files, foreign = (LogFile(path, rank_in_name(path.name)),), ()
    readable, unreadable = [], []
    for log_file in files:
        loaded = load_log(log_file.path, keep_code)
        if loaded.trace.info.from_log and loaded.trace.info.from_log["records"]:
            readable.append((log_file, loaded))
        else:
            unreadable.append(log_file.path.name)
    if not readable:
        what = "no TORCH_TRACE log (dedicated_log_torch_trace_*.log)" if not files else "no readable TORCH_TRACE record"
        extra = f"; {_count(len(foreign), 'other file')} in it" if foreign else ""
        raise LogError(f"{path}: {what}{extra}")
    kept, left_out = _one_per_rank(readable)
    logs = tuple(_numbered(kept))
    return LoadedLogs(logs, foreign, tuple(unreadable), tuple(left_out))


def _one_per_rank(readable: list[tuple[LogFile, LoadedLog]]) -> tuple[list[LoadedLog], list[str]]:
    """The newest log of each rank: a directory used by two runs holds both runs' logs."""
    by_rank: dict[int, tuple[float, LoadedLog]] = {}
    unranked, left_out = [], []
    for log_file, loaded in readable:
        if loaded.rank is None:
            unranked.append(loaded)
            continue
        mtime = log_file.path.stat().st_mtime
        held = by_rank.get(loaded.rank)
        if held is None or mtime > held[0]:
            if held is not None:
                left_out.append(held[1].source)
            by_rank[loaded.rank] = (mtime, loaded)
        else:
            left_out.append(loaded.source)
    return [by_rank[rank][1] for rank in sorted(by_rank)] + unranked, left_out


def _numbered(logs: list[LoadedLog]) -> list[LoadedLog]:
    """Each ranked log's rank in its run info, as a rank trace has it (world size: the ranks found)."""
    ranked = [log.rank for log in logs if log.rank is not None]
    world = max(ranked, default=-1) + 1
    for log in logs:
        if log.rank is not None:
            log.trace.info.rank = {"rank": log.rank, "world_size": world, "local_rank": None, "host": None,
                                   "launcher": "TORCH_TRACE", "backend": None}
    return logs
