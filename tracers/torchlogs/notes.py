"""What reading the logs noticed, one note a line: a fact that holds for several logs said once, with their ranks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tracers.ranks.wording import ranks_text
from tracers.tracefile import compile_identity
from tracers.vocabulary.printable import printable_value

from .streams import STOPPED

# ``loaded`` is load.py's LoadedLogs and ``log`` its LoadedLog, read by their fields: load.py asks this module for
# the notes, so this one does not import it back.
LoadedLogs = Any
LoadedLog = Any

# A log's facts in this order: damage and oddities first (by kind), what was read once though written twice, the
# rank its records name, then the record kinds it lacks.
_DAMAGE, _RENUMBERED, _RANK, _MISSING = range(4)
_NOUNS = ("region", "record", "line", "payload", "file")  # the counted noun of each kind of damage (records.py, convert.py)


@dataclass(frozen=True)
class _Fact:
    order: tuple[int, str]
    one: str  # said of one log
    several: str  # said of several at once: a count holds for each of them


def reading_notes(loaded: LoadedLogs) -> tuple[str, ...]:
    """Every note, one a line: which logs were read, then each fact of a log, said once for the logs it holds for."""
    notes = [*_which_logs(loaded)]
    alike: dict[_Fact, list[LoadedLog]] = {}
    for log in loaded.logs:
        for fact in _facts(log):
            alike.setdefault(fact, []).append(log)
    # stable: within a kind, groups keep the order of their first log
    for fact, logs in sorted(alike.items(), key=lambda item: item[0].order):
        notes.append(f"{_who(logs)}: {fact.one if len(logs) == 1 else fact.several}")
    return tuple(printable_value(note) for note in notes)


def _which_logs(loaded: LoadedLogs) -> Iterator[str]:
    """Which logs were read, and which left out or ignored, and why."""
    if loaded.cut:
        yield loaded.cut
    yield from (choice.describe() for choice in loaded.choices)
    if loaded.choices:
        # a rank left without a log (it has fewer than --run asked) lists all of them as others
        runs = max(len(choice.others) + bool(choice.used) for choice in loaded.choices)
        yield f"--run 1 … {runs} picks another run, by when each log starts"
    yield from loaded.several_runs
    yield from (f"{copy} is a copy of {original} (left out)" for copy, original in loaded.copies)
    if loaded.unreadable:
        yield f"{_count(len(loaded.unreadable), 'log')} with no readable record ({', '.join(loaded.unreadable)})"
    if loaded.foreign:
        shown = ", ".join(loaded.foreign[:5]) + (", …" if len(loaded.foreign) > 5 else "")
        yield f"{_count(len(loaded.foreign), 'foreign file')} ignored ({shown})"


def _facts(log: LoadedLog) -> Iterator[_Fact]:
    for kind, count in log.problems.counts.items():
        yield _damage(kind, count, log.problems.first.get(kind, ""), log.source)
    renumbered = _renumbered(log)
    if renumbered:
        yield renumbered
    if log.rank_conflict:
        said = f"rank {log.record_rank}"
        yield _Fact((_RANK, ""), f"its records say {said} (the rank in its file name is used)",
                    f"their records say {said} (the ranks in their file names are used)")
    if log.missing_kinds:
        said = f"no {', '.join(log.missing_kinds)} records (an older torch, or cut short)"
        yield _Fact((_MISSING, ""), said, said)


def _damage(kind: str, count: int, where: str, source: str) -> _Fact:
    """``4 damaged payloads (first at line 1686)``; ``… each`` of several logs. ``where``: ``name:line``, the
    name alone (the whole file), or for a bound met the line that says where reading stopped."""
    if kind == STOPPED:
        said = where.removeprefix(f"{source}: ")
        return _Fact((_DAMAGE, kind), said, said)
    line = where.removeprefix(f"{source}:") if where.startswith(f"{source}:") else ""
    place = f"{'first at' if count > 1 else 'at'} line {line}" if line.isdigit() else ""
    if count == 1 and not place:  # a fact of the whole file (not gzip, a rank out of range in its name)
        return _Fact((_DAMAGE, kind), kind, kind)
    noun = kind if count == 1 else _plural(kind)
    stem, bracket = (noun[:-1].rsplit(" (", 1) if noun.endswith(")") and " (" in noun else (noun, ""))
    inside = "; ".join(part for part in (bracket, place) if part)
    tail = f" ({inside})" if inside else ""
    return _Fact((_DAMAGE, kind), f"{count} {stem}{tail}", f"{count} {stem} each{tail}")


def _plural(kind: str) -> str:
    for noun in _NOUNS:
        if noun in kind:
            return kind.replace(noun, f"{noun}s", 1)
    return kind


def _renumbered(log: LoadedLog) -> _Fact | None:
    """Records written again under new compile numbers, with tlparse's count (every number) beside ours (each
    compile once)."""
    repeats = (log.trace.info.from_log or {}).get("repeats") or {}
    if not repeats:
        return None
    ours = len({compile_identity.torch_id(item.compile_id) for item in [*log.trace.spans, *log.trace.artifacts]
                if item.compile_id and "/" in item.compile_id and not item.compile_id.startswith("!")})
    by_original: dict[str, list[str]] = {}
    for new, originals in repeats.items():
        by_original.setdefault(", ".join(originals), []).append(new)
    what = "; ".join(f"compile{'s' if len(new) > 1 else ''} {', '.join(new)} repeat{'' if len(new) > 1 else 's'} "
                     f"the records of {original or 'earlier compiles'}" for original, new in by_original.items())
    head = f"{what} (the same payloads and times under new compile numbers): read once,"
    counted = f"where tlparse counts {ours + len(repeats)}"
    return _Fact((_RENUMBERED, ""), f"{head} {_count(ours, 'compile')} {counted}",
                 f"{head} {_count(ours, 'compile')} each {counted}")


def _who(logs: Sequence[LoadedLog]) -> str:
    """``ranks 0–3``, a log without a rank by its file name."""
    ranks = [log.rank for log in logs if log.rank is not None]
    names = [log.source for log in logs if log.rank is None]
    return ", ".join(([ranks_text(ranks)] if ranks else []) + names)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
