"""The summary's "Speed by your code" section: eager vs compiled per compiled function, kernel time by user line."""

from __future__ import annotations

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.speed import FunctionProfile, FunctionSpeed
from tracers.tracefile.events import Trace
from tracers.tracefile.speed import WARMUP_CALLS
from tracers.vocabulary.durations import duration

from .style import Style

TOP_LINES = 8  # per profiled function; the page and the API have them all


def render(trace: Trace, style: Style, width: int = 100) -> list[str]:
    """The old call form of :func:`section` (analyses the trace itself)."""
    return section(build_report(trace), style, width)


def section(report: Report, style: Style, width: int = 100) -> list[str]:
    """The section's lines; none for a trace recorded without --vs-eager or --profile."""
    speed = report.speed
    if speed is None:
        return []
    left_out = f"the calls that compiled, the {WARMUP_CALLS} after each" + (" and the profiled ones"
                                                                             if speed.profiles else "")
    lines = ["", style.bold("Speed by your code") + style.dim(
        f"  (median time per steady call, by {speed.timer}; {left_out} left out)")]
    if speed.functions:
        lines.append(style.dim(f"  {'compiled function':<34}{'calls':>8}{'eager':>11}{'compiled':>11}{'speedup':>9}"
                               f"{'compile':>10}  pays back after"))
        lines += [_function_line(function, style) for function in speed.functions]
    else:
        lines.append("  nothing this run passed to torch.compile was called")
    for profile in speed.profiles:
        lines += _profile_lines(profile, style, width)
    lines += [style.yellow(f"  note: {note}") for note in speed.notes]
    return lines


def _function_line(function: FunctionSpeed, style: Style) -> str:
    eager = duration(function.eager_ns) if function.eager_ns is not None else "—"
    compiled = duration(function.compiled_ns) if function.compiled_ns is not None else "—"
    speedup = f"{function.speedup:.2f}×" if function.speedup is not None else "—"
    if function.speedup is not None and function.speedup < 1:
        speedup = style.red(f"{speedup:>9}")
    else:
        speedup = f"{speedup:>9}"
    if function.payback_calls is not None:
        payback = f"{function.payback_calls:,} calls" + ("" if function.pays_back else style.yellow(" (not in this run)"))
    else:
        payback = "never" if function.saved_ns is not None else "—"
    return (f"  {_clip(function.label, 33):<34}{function.calls:>8,}{eager:>11}{compiled:>11}{speedup}"
            f"{duration(function.compile_ns):>10}  {payback}")


def _profile_lines(profile: FunctionProfile, style: Style, width: int) -> list[str]:
    lines = ["", style.bold(f"Kernel time by your line: {profile.label}") + style.dim(
        f"  (torch.profiler over {profile.calls} steady calls; {', '.join(profile.activities)}; per call)")]
    for line_time in profile.lines[:TOP_LINES]:
        where = f"{line_time.line.label} `{line_time.line.code}`" if line_time.line else "no user line recorded"
        kernels = len(line_time.kernels)
        head = f"  {duration(line_time.ns_per_call):>10} in {kernels} kernel{'s' if kernels != 1 else ' '}  "
        lines.append(head + _clip(where, max(20, width - len(head))))
    if len(profile.lines) > TOP_LINES:
        lines.append(style.dim(f"  … {len(profile.lines) - TOP_LINES} more lines"))
    if not profile.lines:
        lines.append(style.dim("  no kernel of this function's compiled graphs was seen (no Inductor kernels?)"))
    if profile.outside_ns is not None:
        lines.append(style.dim(f"  {duration(profile.outside_ns):>10} outside the compiled graphs per call "
                               f"(of {duration(profile.call_ns)} a profiled call, which the profiler slows): guards, "
                               "wrappers, eager code at breaks"))
    for use in profile.cudagraphs:
        state = f"{use.replays_per_call:g} CUDA graph replays per call" if use.replays_per_call else "no CUDA graphs"
        skipped = f"; skipped: {'; '.join(use.skipped)}" if use.skipped else ""
        lines.append(style.dim(f"  [{use.compile_id}] {state}{skipped}"))
    return lines


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
