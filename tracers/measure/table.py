"""The numbers of a measurement as a table of text cells: the terminal and the site's directive show the same."""

from __future__ import annotations

from .measurement import EAGER, Measurement, Result
from .svgplot import format_value

HEADERS = ("batch", "mode", "time per call", "speedup", "first result (cold)", "first result (warm)",
           "calls to break even (cold)", "calls to break even (warm)", "peak memory")
MISSING = "–"
LEGEND = (
    "time per call: median of the timed blocks (25th–75th percentile). speedup: eager's time per call over the "
    "mode's, both timed in the mode's own process in alternating blocks. first result: from torch.compile() to the "
    "first output, with empty compile caches (cold) or caches a previous process filled (warm). break-even: calls "
    "until the time compiling cost once is won back (never: not faster than eager). peak memory: the process's peak resident set on CPU, "
    "torch.cuda.max_memory_allocated() on CUDA."
)


def _seconds(value: float | None) -> str:
    return MISSING if value is None else format_value(value, "seconds")


def _calls(result: Result, value: int | None) -> str:
    if result.mode == EAGER:
        return MISSING
    if result.pays_off is False:
        return "never"
    return MISSING if value is None else f"{value:,}"


def _speedup(result: Result) -> str:
    if result.speedup is None:
        return MISSING
    return f"{result.speedup:.2f}×"


def rows(measurement: Measurement) -> list[tuple[str, ...]]:
    """One row per batch size and mode, in measuring order."""
    table = []
    for result in measurement.results:
        steady = _seconds(result.steady_s)
        if result.steady_s is not None and result.p25_s is not None and result.p75_s is not None:
            steady += f" ({format_value(result.p25_s, 'seconds')}–{format_value(result.p75_s, 'seconds')})"
        table.append((
            str(result.batch_size), result.mode, steady,
            _speedup(result) if result.mode != EAGER or result.steady_s is None else "1×",
            _seconds(result.first_call_cold_s), _seconds(result.first_call_warm_s) if result.mode != EAGER else MISSING,
            _calls(result, result.break_even_cold), _calls(result, result.break_even_warm),
            MISSING if result.peak_memory_bytes is None else format_value(result.peak_memory_bytes, "bytes"),
        ))
    return table


def render_text(measurement: Measurement) -> str:
    """The table for a terminal, columns padded."""
    body = rows(measurement)
    widths = [max(len(row[i]) for row in [HEADERS, *body]) for i in range(len(HEADERS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [HEADERS, *body]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
