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
