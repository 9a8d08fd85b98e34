"""Repeated timings of one thing: the median, the run-to-run spread, and whether a change lies inside it."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    """One quantity timed in each of several runs (nanoseconds, in run order)."""

    runs: tuple[int, ...]

    @property
    def median(self) -> int:
        return int(statistics.median(self.runs))

    @property
    def spread(self) -> int | None:
        """Largest minus smallest run; None after a single run (no spread was measured)."""
        return max(self.runs) - min(self.runs) if len(self.runs) > 1 else None


def timing(values: Iterable[int | None]) -> Spread | None:
    """The runs that had the quantity (a stage that never ran in a run has no time there); None if none had it."""
    runs = tuple(value for value in values if value is not None)
    return Spread(runs) if runs else None


def is_noise(a: Spread | None, b: Spread | None) -> bool | None:
    """True when the medians differ by no more than the larger run-to-run spread of the two sides.

    None when that cannot be said: a side is missing, or neither side was timed more than once."""
    if a is None or b is None:
        return None
    spreads = [spread for spread in (a.spread, b.spread) if spread is not None]
    if not spreads:
        return None
    return abs(b.median - a.median) <= max(spreads)


ROUNDS = 5  # rounds the steady calls are cut into, at the same call indices in both runs
MIN_PER_ROUND = 2  # fewer calls a round and the rounds are fewer; under two rounds, no spread is measured


def rounds(indices: list[int], count: int = ROUNDS) -> list[list[int]]:
    """The indices cut into up to ``count`` consecutive rounds of (nearly) equal size, in order."""
    count = max(1, min(count, len(indices) // MIN_PER_ROUND))
    size, extra = divmod(len(indices), count)
    cut, start = [], 0
    for round_index in range(count):
        end = start + size + (1 if round_index < extra else 0)
        if end > start:
            cut.append(indices[start:end])
        start = end
    return cut


@dataclass(frozen=True)
class Compared:
    """One quantity timed eager and compiled over the same rounds of calls: each side's round medians (in order)
    and its median over all of them; each round's speedup is its eager median over its compiled median.

    The two sides ran in two processes, round k at the same calls of the script in both: the rounds' speedups
    spread with whatever the machine did meanwhile, so a verdict is given only when every round agrees."""

    eager: Spread
    compiled: Spread
    eager_ns: float
    compiled_ns: float

    @property
    def speedup(self) -> float:
        return self.eager_ns / self.compiled_ns if self.compiled_ns else 0.0

    @property
    def ratios(self) -> tuple[float, ...]:
        return tuple(eager / compiled for eager, compiled in zip(self.eager.runs, self.compiled.runs) if compiled)

    @property
    def low(self) -> float:
        return min(self.ratios, default=self.speedup)

    @property
    def high(self) -> float:
        return max(self.ratios, default=self.speedup)

    @property
    def verdict(self) -> str | None:
        """``faster`` or ``slower`` where every round says so, ``even`` where the rounds disagree; None with fewer
        than two rounds (no spread measured, so none is claimed)."""
        if len(self.ratios) < 2:
            return None
        if self.low > 1:
            return "faster"
        if self.high < 1:
            return "slower"
        return "even"

    @property
    def range_text(self) -> str:
        """The rounds' speedups as said to the user: ``0.93–1.12×``."""
        return f"{self.low:.2f}–{self.high:.2f}×"
