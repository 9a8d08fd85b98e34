"""Speed by your code in two traces: each compiled function's eager and compiled time per call, and kernel time by line."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.events import Trace
from tracers.tracefile.speed import compiled_label

from .speed import FunctionProfile, FunctionSpeed, LineTime, PartSpeed, Speed, speed_of
from .spread import Spread, is_noise

PARTS = ("step", "forward", "backward")


@dataclass(frozen=True)
class PartPair:
    """One part (the step, the forward, the backward) of one compiled function on each side."""

    part: str
    a: PartSpeed | None
    b: PartSpeed | None

    @property
    def compiled_ratio(self) -> float | None:
        """B's compiled time over A's: below 1, B's is faster."""
        return _ratio(self.a.compiled_ns if self.a else None, self.b.compiled_ns if self.b else None)

    @property
    def eager_ratio(self) -> float | None:
        return _ratio(self.a.eager_ns if self.a else None, self.b.eager_ns if self.b else None)

    @property
    def within_spread(self) -> bool | None:
        """Whether the compiled medians differ by no more than either side's spread over its rounds (None: a side has
        no rounds: no spread was measured)."""
        return is_noise(_rounds(self.a), _rounds(self.b))


def _headline(speed: FunctionSpeed | None) -> PartSpeed | None:
    return speed.headline if speed is not None else None


def _rounds(part: PartSpeed | None) -> Spread | None:
    return part.compared.compiled if part is not None and part.compared is not None else None

TOP_LINES = 8  # lines per profiled function: the largest on either side


@dataclass(frozen=True)
class SpeedRow:
    """One compiled function, matched as the runtime analysis matches calls: its torch.compile line and order."""

    site: str
    order: int
    name: str
    a: FunctionSpeed | None  # None: the function was not compiled (or not called) in that trace
    b: FunctionSpeed | None

    @property
    def label(self) -> str:
        return compiled_label(self.name, self.site)

    @property
    def compiled_ratio(self) -> float | None:
        """B's compiled time over A's for the headline (the step where timed, else the call): below 1, B's faster."""
        a, b = _headline(self.a), _headline(self.b)
        return _ratio(a.compiled_ns if a else None, b.compiled_ns if b else None)

    @property
    def eager_ratio(self) -> float | None:
        a, b = _headline(self.a), _headline(self.b)
        return _ratio(a.eager_ns if a else None, b.eager_ns if b else None)

    @property
    def parts(self) -> tuple[PartPair, ...]:
        """Step, forward and backward, each where either side timed it."""
        pairs = (PartPair(name, getattr(self.a, name, None) if self.a else None,
                          getattr(self.b, name, None) if self.b else None) for name in PARTS)
        return tuple(pair for pair in pairs if pair.a is not None or pair.b is not None)


@dataclass(frozen=True)
class LineRow:
    """One user line's profiled kernel time per call on each side (None: no kernel of that side came from it)."""

    line: str  # ``file.py:12``, or "no user line recorded"
    code: str
    a_ns: float | None
    b_ns: float | None
    a_kernels: int
    b_kernels: int
    a_backward_ns: float = 0.0  # of the time, the compiled backward's kernels at this line
    b_backward_ns: float = 0.0

    @property
    def ratio(self) -> float | None:
        return _ratio(self.a_ns, self.b_ns)


@dataclass(frozen=True)
class ProfileRow:
    """One profiled function on each side and its lines, largest kernel time (on either side) first."""

    site: str
    order: int
    name: str
    a: FunctionProfile | None
    b: FunctionProfile | None
    lines: tuple[LineRow, ...]  # the TOP_LINES largest
    more_lines: int  # lines left out

    @property
    def label(self) -> str:
        return compiled_label(self.name, self.site)


@dataclass(frozen=True)
class SpeedDiff:
    """The runtime sections of two traces; ``timed_a``/``timed_b`` say which trace has one at all."""

    timed_a: bool
    timed_b: bool
    timer_a: str | None
    timer_b: str | None
    functions: tuple[SpeedRow, ...]
    profiles: tuple[ProfileRow, ...]


def _ratio(a: float | None, b: float | None) -> float | None:
    return b / a if a and b is not None else None


def _key(item: FunctionSpeed | FunctionProfile) -> tuple[str, int]:
    return item.site, item.order


def _line_rows(a: FunctionProfile | None, b: FunctionProfile | None) -> list[LineRow]:
    def by_line(profile: FunctionProfile | None) -> dict[str, LineTime]:
        return {line.line.label if line.line else "no user line recorded": line for line in profile.lines} \
            if profile else {}

    lines_a, lines_b = by_line(a), by_line(b)
    rows = []
    for label in dict.fromkeys([*lines_a, *lines_b]):
        one, other = lines_a.get(label), lines_b.get(label)
        recorded = (one or other).line
        rows.append(LineRow(label, recorded.code if recorded else "", one.ns_per_call if one else None,
                            other.ns_per_call if other else None, len(one.kernels) if one else 0,
                            len(other.kernels) if other else 0, one.backward_ns if one else 0.0,
                            other.backward_ns if other else 0.0))
    return sorted(rows, key=lambda row: -max(row.a_ns or 0.0, row.b_ns or 0.0))


def _matched(a: tuple, b: tuple) -> list[tuple[object | None, object | None]]:
    """Pairs by (site, order): A's order first, then what only B has, in B's order."""
    others = {_key(item): item for item in b}
    pairs = [(item, others.pop(_key(item), None)) for item in a]
    return pairs + [(None, item) for item in others.values()]


def speed_diff(a: Trace, b: Trace) -> SpeedDiff | None:
    """None when neither trace was recorded with ``--vs-eager`` or ``--profile``: the diff then says nothing of it."""
    speed_a, speed_b = speed_of(a), speed_of(b)
    if speed_a is None and speed_b is None:
        return None
    return compare(speed_a, speed_b)


def compare(speed_a: Speed | None, speed_b: Speed | None) -> SpeedDiff:
    """Two runtime analyses side by side (either may be None: that trace was not timed)."""
    functions = tuple(SpeedRow(*_key(one or other), (one or other).name, one, other) for one, other in
                      _matched(speed_a.functions if speed_a else (), speed_b.functions if speed_b else ()))
    profiles = []
    for one, other in _matched(speed_a.profiles if speed_a else (), speed_b.profiles if speed_b else ()):
        lines = _line_rows(one, other)
        profiles.append(ProfileRow(*_key(one or other), (one or other).name, one, other, tuple(lines[:TOP_LINES]),
                                   max(0, len(lines) - TOP_LINES)))
    return SpeedDiff(speed_a is not None, speed_b is not None, speed_a.timer if speed_a else None,
                       speed_b.timer if speed_b else None, functions, tuple(profiles))
