"""A log file or a directory of rank logs loaded as traces; what reading noticed said in notes (notes.py)."""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from tracers.tracefile.events import MAX_RANKS, Trace
from tracers.vocabulary.printable import printable_value
from tracers.vocabulary.reading import LOGS_ENV, ReadError, logs_limit, open_input

from .convert import LogConverter
from .files import LogFile, find_logs, is_log_name, rank_in_name
from .frames import source_roots
from .notes import reading_notes
from .order import in_time_order
from .records import Problems, Record, is_record_line, open_log, read_records
from .runs import RunStart, with_runs
from .streams import STOPPED

BAD_NAME_RANK = f"file name with a rank out of range (0-{MAX_RANKS - 1}): read as a process"


class LogError(Exception):
    """Nothing readable: no log at the path, or none with a single record; one line says why (printable on a
    terminal whatever the path holds)."""

    def __init__(self, message: str):
        super().__init__(printable_value(message))


@dataclass(frozen=True)
class LoadedLog:
    trace: Trace
    rank: int | None  # from the file name when it has one (as tlparse takes it), else the records' rank field
    source: str  # the log's file name
    problems: Problems
    missing_kinds: tuple[str, ...]
    record_rank: int | None = None  # the records' own rank field, reported where it disagrees with the name
    runs: tuple[LoadedLog, ...] = ()  # every run the file holds, in order, where it holds several (runs.py)
    run_count: int = 1  # how many runs its file holds: the one read was picked among them already

    @property
    def rank_conflict(self) -> str | None:
        """``its records say rank 0`` where they name another rank than the file name does."""
        if self.record_rank is None or self.rank is None or self.record_rank == self.rank:
            return None
        return f"its records say rank {self.record_rank}, its name rank {self.rank} (the name is used)"


@dataclass(frozen=True)
class RankChoice:
    """A rank with several logs (runs into one directory): the one read, the others, and why."""

    rank: int
    used: str  # "": none (it has fewer logs than the run asked for)
    others: tuple[str, ...]
    why: str  # "the latest", or "run 1 of 2 (--run 1)"

    def describe(self) -> str:
        if not self.used:
            return f"rank {self.rank} has {_count(len(self.others), 'log')}, {self.why}: none read"
        return (f"rank {self.rank} has {len(self.others) + 1} logs: read {self.used} ({self.why}), "
                f"left out {', '.join(self.others)}")


@dataclass(frozen=True)
class LoadedLogs:
    logs: tuple[LoadedLog, ...]  # readable ones, by rank
    foreign: tuple[str, ...] = ()  # other files in the directory
    unreadable: tuple[str, ...] = ()  # logs without a single record
    left_out: tuple[str, ...] = ()  # another log of a rank (another run into the same directory)
    choices: tuple[RankChoice, ...] = ()  # which log of such a rank was read, and why
    copies: tuple[tuple[str, str], ...] = ()  # (a log left out, the log it is a copy of): the same records
    several_runs: tuple[str, ...] = ()  # a file holding several runs (logs concatenated): which one was read
    cut: str | None = None  # a directory of more logs than are read (vocabulary/reading.py: MAX_LOGS): which were
    one_file: bool = False  # a log file was given, not a directory: nothing is known of the other ranks' logs

    @property
    def ranked(self) -> bool:
        """Several processes' logs, or a rank's in a directory: merged (logs without a rank as processes named by
        their pid). One rank's file given alone is read as that rank's trace: nothing is known of the others."""
        return len(self.logs) > 1 or (not self.one_file and any(log.rank is not None for log in self.logs))

    def notes(self) -> tuple[str, ...]:
        """What reading noticed, one note a line (notes.py): the terminal, the page and the trace file say them."""
        return reading_notes(self)

    def warning(self) -> str | None:
        """The notes, a line each, or None."""
        return "\n".join(self.notes()) or None


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def looks_like_log(path: Path) -> bool:
    """Whether ``path`` is a TORCH_TRACE log or a directory that may hold some (not one of our trace files)."""
    if _is_dir(path):
        return True
    if is_log_name(path.name):
        return True
    try:
        with open_log(path) as stream:
            head = stream.head(_HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return False
    # a renamed log: a record among its first lines (its first may be damaged, or follow a BOM)
    return any(is_record_line(line[:4096].decode("utf-8", "replace").rstrip("\r"))
               for line in head.split(b"\n")[:_FIRST_LINES])


def _is_dir(path: Path) -> bool:
    """``path.is_dir()``, False where a folder on the way cannot be searched (open_input then says why)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    """``path.exists()``, True where a folder on the way cannot be searched (open_input then says why)."""
    try:
        return path.exists()
    except OSError:
        return True


_FIRST_LINES = 64  # how far into a file not named as a log a record is looked for (payloads run between records)
_HEAD_BYTES = 1 << 20  # and in how much of its text: a file of one endless line is not read to its end


class _AlreadyCounted(Problems):
    """The problems of a first reading, read again in time order: counted once, by the first reading."""

    def note(self, kind: str, where: str, count: int = 1) -> None:
        pass


def load_log(path: Path, keep_code: bool = True, roots: tuple[Path, ...] | None = None) -> LoadedLog:
    """One log read as a trace, streaming (memory bounded by the trace kept, not the log). Records found out of
    time order are read again, sorted by their timestamps (order.py). ``roots``: where a frame's source may be
    read (frames.py; default: the current directory and the installed torch)."""
    roots = source_roots() if roots is None else roots
    problems = Problems()
    name = printable_value(path.name)  # the log's name as every message and label shows it
    converters = _converted(name, problems, keep_code, roots, read_records(path, problems))
    if any(converter.out_of_order for converter in converters):
        converters = _converted(name, _AlreadyCounted(problems.counts, problems.first), keep_code, roots,
                                in_time_order(read_records(path, Problems())))
    # The name wins: collected logs are renamed per rank, and a process may log another rank's number (tlparse
    # takes the name too); a record rank that disagrees is reported, never silently preferred.
    named = rank_in_name(path.name)
    if named is not None and named >= MAX_RANKS:  # a slot is made for every rank below it: one number is no world
        problems.note(BAD_NAME_RANK, name)
        named = None
    runs = []
    for converter in converters:
        converted = converter.finish(name)
        rank = named if named is not None else converted.rank
        runs.append(LoadedLog(converted.trace, rank, name, problems, converted.missing_kinds, converted.rank))
    if len(runs) == 1:
        return runs[0]
    return replace(runs[-1], runs=tuple(runs))  # the latest, as a rank's latest log is read


def _converted(name: str, problems: Problems, keep_code: bool, roots: tuple[Path, ...],
               records: Iterable[Record]) -> list[LogConverter]:
    """One converter per run the records hold (runs.py), each fed its run's records."""
    stream = with_runs(records)
    converters: list[LogConverter] = []
    another = True
    while another:
        another = False
        converter = LogConverter(name, problems, keep_code, roots)
        converters.append(converter)

        def this_run() -> Iterator[Record]:
            nonlocal another
            for item in stream:
                if isinstance(item, RunStart):
                    another = True
                    return
                yield item

        converter.feed(this_run())
    return converters


def load_logs(path: Path, keep_code: bool = True, run: int | None = None,
              roots: tuple[Path, ...] | None = None) -> LoadedLogs:
    """A log file, or every log in a directory; raises LogError when nothing in it can be read, or when ``run``
    asks for more runs than any of it holds. ``run``: of a file's several runs, or of a rank with several logs, the
    run-th by when it starts (1: the earliest); default the latest."""
    if not _exists(path):
        try:  # a loop of symbolic links, or a directory on the way that cannot be searched, says so
            open_input(path, "log").close()
        except ReadError as error:
            raise LogError(str(error)) from None
        raise LogError(f"{path}: no such file or directory")
    if _is_dir(path):
        try:
            found = find_logs(path, looks_like_log)
        except ReadError as error:
            raise LogError(str(error)) from None
        files, foreign = found.logs, found.foreign
        files, cut = _within_limit(files)
    else:
        try:  # a FIFO, a device or a socket is refused at once, a file that cannot be read says why
            open_input(path, "log").close()
        except ReadError as error:
            raise LogError(str(error)) from None
        files, foreign, cut = (LogFile(path, rank_in_name(path.name)),), (), None
    roots = source_roots() if roots is None else roots
    readable, unreadable, stopped, several = [], [], [], []
    file_runs = 1  # the most runs one file holds (logs concatenated)
    past_runs = False  # a file left out for holding fewer runs than --run asked
    for log_file in files:
        loaded = load_log(log_file.path, keep_code, roots)
        if loaded.runs:
            file_runs = max(file_runs, len(loaded.runs))
            loaded, said = _run_of_file(loaded, run)
            several.append(said)
            if loaded is None:  # it has no run of that number: said, and nothing of it read
                past_runs = True
                continue
        if loaded.trace.info.from_log and loaded.trace.info.from_log["records"]:
            readable.append((log_file, loaded))
        else:
            unreadable.append(log_file.path.name)
            if STOPPED in loaded.problems.first:  # what it read held no record: where reading stopped, and why
                stopped.append(loaded.problems.first[STOPPED])
    if not readable and past_runs:
        raise LogError(_no_such_run(path, run or 0, readable, file_runs))
    if not readable:
        what = "no TORCH_TRACE log (dedicated_log_torch_trace_*.log)" if not files else "no readable TORCH_TRACE record"
        extra = f"; {_count(len(foreign), 'other file')} in it" if foreign else ""
        raise LogError(f"{path}: {what}{extra}" + "".join(f"; {line}" for line in stopped[:2]))
    readable, copies = _without_copies(readable)
    kept, choices = _one_per_rank(readable, run)
    read = {id(log) for log in kept}
    several += [f"{log.source} holds 1 run, it has no run {run}: none read" for _, log in readable
                if log.rank is None and id(log) not in read]
    if not kept:  # --run asked for a run no log holds (readable logs exist, so run is set)
        raise LogError(_no_such_run(path, run or 0, readable, file_runs))
    one_file = not _is_dir(path)
    logs = tuple(_numbered(kept, one_file))
    left_out = tuple(name for choice in choices for name in choice.others)
    loaded = LoadedLogs(logs, foreign, tuple(unreadable), left_out, tuple(choices), tuple(copies), tuple(several), cut,
                        one_file)
    notes = loaded.notes()
    if notes:  # the trace files say them too: a page outlives the terminal (a merge's page reads its ranks' traces)
        for log in logs:
            if log.trace.info.from_log is not None:
                log.trace.info.from_log["reading_notes"] = list(notes)
    return loaded


def _within_limit(files: tuple[LogFile, ...]) -> tuple[tuple[LogFile, ...], str | None]:
    """The first logs of a directory, by rank, up to the bound; and the line that says what was left unread."""
    limit = logs_limit()
    if len(files) <= limit:
        return files, None
    kept = files[:limit]
    ranks = [log.rank for log in kept if log.rank is not None]
    which = f" (ranks {min(ranks)}–{max(ranks)})" if ranks else ""
    return kept, (f"the directory holds {len(files):,} logs: read the first {limit:,} by rank{which}, the rest left "
                  f"unread ({LOGS_ENV}={len(files)} reads them all)")


def _run_of_file(loaded: LoadedLog, run: int | None) -> tuple[LoadedLog | None, str]:
    """Of a file's runs, the latest, or the ``run``-th; None where it has fewer; and the line that says so."""
    runs = loaded.runs
    described = ", ".join(f"{i} of pid {(log.trace.info.from_log or {}).get('pid') or '?'}"
                          + (f" from {log.trace.info.started_at}" if log.trace.info.started_at else "")
                          for i, log in enumerate(runs, 1))
    head = f"{loaded.source} holds {len(runs)} runs, told apart by the process that wrote them ({described})"
    if run is not None and run > len(runs):
        return None, f"{head}: it has no run {run}, none read; --run 1 … {len(runs)} picks one"
    index = len(runs) - 1 if run is None else run - 1
    why = "the latest" if run is None else f"run {run}, as --run asked"
    said = f"{head}: read run {index + 1} ({why}); --run 1 … {len(runs)} picks another"
    chosen = runs[index]
    if chosen.trace.info.from_log is not None:  # the trace file says it too: the page and the JSON outlive the terminal
        chosen.trace.info.from_log["run_in_file"] = said
    return replace(chosen, runs=(), run_count=len(runs)), said


def _no_such_run(path: Path, run: int, readable: list[tuple[LogFile, LoadedLog]], file_runs: int) -> str:
    """The one line for a ``--run`` past every run the input holds: how many it does hold, and how to pick one."""
    per_rank = Counter(loaded.rank for _, loaded in readable if loaded.rank is not None)  # a rank's logs: its runs
    most = max([*per_rank.values(), file_runs], default=1)
    held = f"{'at most ' if _is_dir(path) else ''}{most} runs: --run 1 … {most} picks one" if most > 1 \
        else "1 run: leave --run out"
    return f"{path}: --run {run} asks for a run it does not hold; it holds {held}"


def _without_copies(readable: list[tuple[LogFile, LoadedLog]]) -> tuple[list[tuple[LogFile, LoadedLog]],
                                                                        list[tuple[str, str]]]:
    """The logs less copies of another (``x.log`` beside its ``x.log.gz``, or collected twice): the same process,
    records and times, to the nanosecond. Read twice, a copy would stand as a second process or run."""
    seen: dict[tuple, str] = {}
    kept, copies = [], []
    for log_file, loaded in readable:
        trace = loaded.trace
        key = (loaded.rank, (trace.info.from_log or {}).get("pid"), (trace.info.from_log or {}).get("records"),
               len(trace.spans), len(trace.artifacts), tuple((s.start_ns, s.end_ns) for s in trace.spans[:1]),
               max((s.end_ns or 0 for s in trace.spans), default=0))
        if key in seen:
            copies.append((loaded.source, seen[key]))
        else:
            seen[key] = loaded.source
            kept.append((log_file, loaded))
    return kept, copies


def _started(log_file: LogFile, loaded: LoadedLog) -> float:
    """When a log's run started: its first timed region (the wall clock torch stamps), else the file's mtime
    (a copy's mtime is the copy's, so the log's own clock comes first)."""
    first = min((span.start_ns for span in loaded.trace.spans), default=0)
    if first:
        return first / 1e9
    try:
        return log_file.path.stat().st_mtime
    except OSError:
        return 0.0


def _one_per_rank(readable: list[tuple[LogFile, LoadedLog]],
                  run: int | None) -> tuple[list[LoadedLog], list[RankChoice]]:
    """One log per rank: a directory used by two runs holds both runs' logs. The latest by default, else the
    ``run``-th by start time; a rank with fewer logs than that is left without one."""
    by_rank: dict[int, list[tuple[float, str, LoadedLog]]] = {}
    unranked = []
    for log_file, loaded in readable:
        if loaded.rank is None:
            unranked.append(loaded)
        else:
            by_rank.setdefault(loaded.rank, []).append((_started(log_file, loaded), loaded.source, loaded))
    kept, choices = [], []
    for rank in sorted(by_rank):
        logs = sorted(by_rank[rank], key=lambda item: item[:2])
        if len(logs) == 1 and logs[0][2].run_count > 1:  # the run was picked among its file's already
            kept.append(logs[0][2])
            continue
        if run is None:
            index, why = len(logs) - 1, "the latest"
        elif run <= len(logs):
            index, why = run - 1, f"run {run} of {len(logs)}, by when each log starts"
        else:
            choices.append(RankChoice(rank, "", tuple(item[1] for item in logs),
                                      f"it has no run {run}"))
            continue
        kept.append(logs[index][2])
        if len(logs) > 1:
            choices.append(RankChoice(rank, logs[index][1], tuple(item[1] for i, item in enumerate(logs)
                                                                   if i != index), why))
    # a log without a rank is a process of its own, one run unless its file holds several (picked among already)
    unranked = [log for log in unranked if run is None or run == 1 or log.run_count > 1]
    return kept + unranked, choices


def _numbered(logs: list[LoadedLog], one_file: bool = False) -> list[LoadedLog]:
    """Each ranked log's rank in its run info, as a rank trace has it (world size: the ranks found; unknown for one
    file given alone, as torch's records do not say it)."""
    ranked = [log.rank for log in logs if log.rank is not None]
    world = None if one_file else max(ranked, default=-1) + 1
    for log in logs:
        if log.rank is not None:
            log.trace.info.rank = {"rank": log.rank, "world_size": world, "local_rank": None, "host": None,
                                   "launcher": "TORCH_TRACE", "backend": None}
    return logs
