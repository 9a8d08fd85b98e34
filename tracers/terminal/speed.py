"""The summary's "Speed by your code" section: eager vs compiled per compiled function, kernel time by user line."""

from __future__ import annotations

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.speed import FunctionProfile, FunctionSpeed, PartSpeed
from tracers.analysis.spread import ROUNDS
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
        f"  (median per steady call, by {speed.timer}; {left_out} left out; step: one call's start to the next's; "
        f"rounds: the steady calls cut into up to {ROUNDS} rounds at the same calls in both runs, each round's "
        "speedup; the spread within this pair of processes: two processes can differ by more)")]
    if speed.functions:
        lines.append(style.dim(f"  {'compiled function':<30}{'calls':>7}  {'part':<9}{'eager':>10}{'compiled':>10}"
                               f"{'speedup':>9}  {'rounds':<13}{'compile':>9}  verdict"))
        for function in speed.functions:
            lines += _function_lines(function, style)
    else:
        lines.append("  nothing this run passed to torch.compile was called")
    for profile in speed.profiles:
        lines += _profile_lines(profile, style, width)
    lines += [style.yellow(f"  note: {note}") for note in speed.notes]
    return lines


def _function_lines(function: FunctionSpeed, style: Style) -> list[str]:
    """The headline part first (the step where timed), with the compile and the verdict; the other parts below."""
    headline = function.headline
    parts = [headline] + [part for part in (function.step, function.forward, function.backward)
                          if part is not None and part is not headline]
    lines = []
    for index, part in enumerate(part for part in parts if part is not None):
        name = f"{_clip(function.label, 29):<30}{function.calls:>7,}" if index == 0 else " " * 37
        tail = f"{duration(function.compile_ns):>9}  {_verdict(function, style)}" if index == 0 else ""
        line = (f"  {name}  {part.part:<9}{_time(part.eager_ns):>10}{_time(part.compiled_ns):>10}"
                f"{_speedup(part, style)}  {part.spread_text if part.compared else '—':<13}{tail}")
        lines.append(line.rstrip() if index else line)
    return lines


def _verdict(function: FunctionSpeed, style: Style) -> str:
    said = function.verdict_said
    if function.verdict == "slower":
        return style.red(said)
    return style.yellow(said) if function.verdict != "faster" or not function.pays_back else said


def _speedup(part: PartSpeed, style: Style) -> str:
    return style.red(f"{part.ratio:>9}") if part.verdict == "slower" else f"{part.ratio:>9}"


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _profile_lines(profile: FunctionProfile, style: Style, width: int) -> list[str]:
    lines = ["", style.bold(f"Kernel time by your line: {profile.label}") + style.dim(
        f"  (torch.profiler over {profile.calls} steady calls; {', '.join(profile.activities)}; per call)")]
    split = any(line.backward_ns for line in profile.lines)
    if split:
        lines.append(style.dim(f"  {'all':>10} {'forward':>10} {'backward':>10}  (the compiled backward's kernels "
                               "at the forward lines they came from)"))
    for line_time in profile.lines[:TOP_LINES]:
        where = f"{line_time.line.label} `{line_time.line.code}`" if line_time.line else "no user line recorded"
        kernels = len(line_time.kernels)
        parts = f" {duration(line_time.forward_ns):>10} {duration(line_time.backward_ns):>10}" if split else ""
        head = f"  {duration(line_time.ns_per_call):>10}{parts} in {kernels} kernel{'s' if kernels != 1 else ' '}  "
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
    lines += [style.dim(f"  {said}") for said in profile.reconciled]
    return lines


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
