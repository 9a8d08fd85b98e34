"""The numbers of a measurement as a table of text cells: the terminal and the site's directive show the same."""

from __future__ import annotations

from .measurement import EAGER, Measurement, Result
from .svgplot import format_value

HEADERS = ("batch", "mode", "time per call", "eager beside it", "speedup", "first result (cold)",
           "first result (warm)", "calls to break even (cold)", "calls to break even (warm)", "peak memory")
# Eager's own process and eager timed beside a mode time the same calls: this far apart, one of them is not the
# steady state (a warm-up, another load on the machine), and the table says so below it.
DISAGREE = 3.0
MISSING = "–"
LEGEND = (
    "time per call: median of the timed blocks (25th–75th percentile). eager beside it: eager's time per call timed "
    "in the mode's own process, in blocks alternating with the mode's. speedup: that eager time over the mode's. "
    "first result: from torch.compile() to the "
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
            _seconds(result.eager_paired_s) if result.mode != EAGER else MISSING,
            _speedup(result) if result.mode != EAGER or result.steady_s is None else "1×",
            _seconds(result.first_call_cold_s), _seconds(result.first_call_warm_s) if result.mode != EAGER else MISSING,
            _calls(result, result.break_even_cold), _calls(result, result.break_even_warm),
            MISSING if result.peak_memory_bytes is None else format_value(result.peak_memory_bytes, "bytes"),
        ))
    return table


def disagreements(measurement: Measurement) -> list[str]:
    """Where eager's own process and eager timed beside a mode are ``DISAGREE`` times apart or more, in words."""
    eager = {result.batch_size: result.steady_s for result in measurement.results
             if result.mode == EAGER and result.steady_s}
    said = []
    for result in measurement.results:
        own, beside = eager.get(result.batch_size), result.eager_paired_s
        if result.mode == EAGER or not own or not beside or max(own, beside) < DISAGREE * min(own, beside):
            continue
        said.append(f"batch {result.batch_size}: eager took {format_value(own, 'seconds')} a call in its own process "
                    f"and {format_value(beside, 'seconds')} beside {result.mode}, {max(own, beside) / min(own, beside):.0f}× "
                    f"apart: one of them is not the steady state (a warm-up, or other load on the machine); the "
                    f"speedup uses the one beside {result.mode}. Measure again before relying on either.")
    return said


def render_text(measurement: Measurement) -> str:
    """The table for a terminal, columns padded, with any disagreement of the eager timings below it."""
    body = rows(measurement)
    widths = [max(len(row[i]) for row in [HEADERS, *body]) for i in range(len(HEADERS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [HEADERS, *body]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines += [f"note: {said}" for said in disagreements(measurement)]
    return "\n".join(lines)
