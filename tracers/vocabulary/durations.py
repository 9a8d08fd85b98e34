"""How a duration is written, everywhere: in ns, µs, ms or s so the number lies in 1-999, to three figures."""

from __future__ import annotations

import math

# One convention for the stage tree, findings, per-call times and plot ticks, so a run reads the same everywhere.
# Trailing zeros go (``2.5 s``, as a plot tick wants it) and from 100 up the number is whole (``1234 s``).
_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3))


def duration(ns: float) -> str:
    """A duration given in nanoseconds: ``1.75 s``, ``246 ms``, ``38 µs``, ``850 ns``."""
    if math.isnan(ns):  # a damaged trace's time: say so rather than round it to 0
        return "nan ns"
    if ns < 0:
        return "-" + duration(-ns)
    # The unit is picked after rounding, so 999.7 ms reads ``1 s`` rather than ``1000 ms``.
    rounded = float(f"{ns:.3g}")
    for unit, scale in _UNITS:
        if rounded >= scale:
            return f"{_figures(ns / scale)} {unit}"
    return f"{_figures(ns)} ns"


def duration_s(seconds: float) -> str:
    """A duration given in seconds, written as ``duration`` writes it."""
    return duration(seconds * 1e9)


def _figures(value: float) -> str:
    """Three significant figures, no trailing zeros, no exponent: ``1.75``, ``38``, ``246``, ``1234``."""
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}" if value >= 1e-3 else "0"  # below a thousandth of the unit .3g would switch to 1e-04
