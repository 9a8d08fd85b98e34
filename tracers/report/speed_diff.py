"""The HTML diff's "Speed by your code" (templates/speed_diff.html): per compiled function eager and compiled per call
on each side with the ratio, and per profiled function the kernel time by user line on each side."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.analysis.speed import FunctionSpeed, PartSpeed
from tracers.analysis.speed_diff import PartPair, ProfileRow, SpeedDiff, SpeedRow
from tracers.vocabulary.durations import duration

from .templating import render


@dataclass(frozen=True)
class SideCells:
    """One side's row of a compiled function: its numbers, or ``missing`` saying why there are none."""

    side: str
    missing: str = ""
    calls: str = ""
    eager: str = ""
    compiled: str = ""
    speedup: str = ""
    slower: bool = False


@dataclass(frozen=True)
class PartCells:
    """One part (step, forward, backward) on both sides: eager / compiled each, B's compiled over A's."""

    part: str
    a: str
    b: str
    ratio: str
    spread: str  # whether the ratio lies within the rounds' spread


@dataclass(frozen=True)
class FunctionRows:
    site: str
    order: int
    name: str
    ratio: str
    sides: tuple[SideCells, SideCells]
    parts: tuple[PartCells, ...] = ()


@dataclass(frozen=True)
class ProfileView:
    name: str
    site: str
    seen: str
    lines: tuple[tuple[str, str, str, str, str], ...]  # (line, code, time under A, under B, ratio)
    more_lines: int


@dataclass(frozen=True)
class SpeedDiffView:
    a: str
    b: str
    untimed: tuple[str, ...]  # sides traced without --vs-eager or --profile
    timers: tuple[str, str] | None  # said where both sides were timed, by different clocks
    functions: tuple[FunctionRows, ...]
    profiles: tuple[ProfileView, ...]


def render_runtime_diff(result: SpeedDiff | None, names: tuple[str, str]) -> str:
    """Empty when neither trace was timed: the diff then has no such part."""
    if result is None:
        return ""
    a, b = names
    untimed = tuple(side for side, timed in ((a, result.timed_a), (b, result.timed_b)) if not timed)
    timers = None
    if result.timed_a and result.timed_b and result.timer_a != result.timer_b:
        timers = (result.timer_a or "?", result.timer_b or "?")
    view = SpeedDiffView(a, b, untimed, timers, tuple(_function(row, result, names) for row in result.functions),
                         tuple(_profile(row, names) for row in result.profiles))
    return render("speed_diff.html", view=view)


def _function(row: SpeedRow, result: SpeedDiff, names: tuple[str, str]) -> FunctionRows:
    ratio = f"{row.compiled_ratio:.2f}×" if row.compiled_ratio is not None else ""
    sides = tuple(_cells(side, speed, timed) for side, speed, timed in
                  ((names[0], row.a, result.timed_a), (names[1], row.b, result.timed_b)))
    return FunctionRows(row.site, row.order, row.name, ratio, sides, tuple(_part(pair) for pair in row.parts))


def _part(pair: PartPair) -> PartCells:
    def cells(part: PartSpeed | None) -> str:
        return "—" if part is None else f"{_time(part.eager_ns)} / {_time(part.compiled_ns)}"

    spread = {True: "within the rounds' spread", False: "beyond the rounds' spread",
              None: "no spread measured"}[pair.within_spread] if pair.compiled_ratio is not None else ""
    ratio = f"{pair.compiled_ratio:.2f}×" if pair.compiled_ratio is not None else ""
    return PartCells(pair.part, cells(pair.a), cells(pair.b), ratio, spread)


def _cells(side: str, speed: FunctionSpeed | None, timed: bool) -> SideCells:
    if speed is None:
        return SideCells(side, f"not compiled in {side}" if timed else "not timed")
    speedup = f"{speed.speedup:.2f}×" if speed.speedup is not None else "—"
    headline = speed.headline
    return SideCells(side, "", f"{speed.calls:,}", _time(headline.eager_ns if headline else None),
                     _time(headline.compiled_ns if headline else None), f"{speedup} per {speed.per}",
                     speed.verdict == "slower")


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _profile(row: ProfileRow, names: tuple[str, str]) -> ProfileView:
    seen = ", ".join(f"{side}: {profile.calls} calls" if profile else f"{side}: not profiled"
                     for side, profile in zip(names, (row.a, row.b)))
    lines = tuple((line.line, line.code, _time(line.a_ns), _time(line.b_ns),
                   f"{line.ratio:.2f}×" if line.ratio is not None else "") for line in row.lines)
    return ProfileView(row.name, row.site, seen, lines, row.more_lines)
