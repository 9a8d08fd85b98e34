"""The GPU checks' one rule for "does the tracer agree with the reference": a table row within TOLERANCE or not."""

from __future__ import annotations

import statistics

TOLERANCE = 0.15  # the bound: tracer and CUDA events outside it agree within 15%


def ms(value: float | None) -> str:
    return f"{value:.2f} ms" if value is not None else "—"


def median(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def row(label: str, ours: float | None, theirs: float | None, unit: str = "ms") -> str:
    """``| label | ours | theirs | difference | within 15% |``, in ms or as a speedup (``×``)."""
    said = (lambda value: f"{value:.2f}×" if value is not None else "—") if unit == "×" else ms
    if ours is None or theirs is None:
        return f"| {label} | {said(ours)} | {said(theirs)} | — | not measured |"
    difference = ours / theirs - 1
    return (f"| {label} | {said(ours)} | {said(theirs)} | {difference:+.1%} | "
            f"{'yes' if abs(difference) <= TOLERANCE else 'NO'} |")
