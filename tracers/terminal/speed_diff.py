"""The diff's "Speed by your code" lines: per compiled function eager and compiled per call on each side, the ratio,
and the profiled kernel time by user line."""

from __future__ import annotations

from tracers.analysis.speed import FunctionSpeed, PartSpeed
from tracers.analysis.speed_diff import LineRow, PartPair, ProfileRow, SpeedDiff, SpeedRow
from tracers.tracefile.speed import WARMUP_CALLS
from tracers.vocabulary.durations import duration

from .style import Style

LABEL = 36  # characters of a function's name and torch.compile line
NOT_TIMED = "traced without --vs-eager or --profile"


def render_runtime_diff(result: SpeedDiff | None, style: Style, names: tuple[str, str]) -> list[str]:
    """The section's lines; none when neither trace was timed."""
    if result is None:
        return []
    a, b = names
    lines = ["", style.bold("Speed by your code") + style.dim(
        f"  (median time per steady call; the calls that compiled, the {WARMUP_CALLS} after each and the profiled "
        "ones left out; each part: eager / compiled on each side)")]
    for side, timed in ((a, result.timed_a), (b, result.timed_b)):
        if not timed:
            lines.append(style.yellow(f"  {side}: {NOT_TIMED}"))
    if result.timed_a and result.timed_b and result.timer_a != result.timer_b:
        lines.append(style.yellow(f"  {a} timed by {result.timer_a}, {b} by {result.timer_b}"))
    if result.functions:
        lines.append(style.dim(f"  {'compiled function':<{LABEL}}{'':<3}{'calls':>8}{'eager':>11}{'compiled':>11}"
                               f"{'speedup':>9}"))
        for row in result.functions:
            lines += _function_lines(row, style, names, result)
    for profile in result.profiles:
        lines += _profile_lines(profile, style, names)
    return lines


def _function_lines(row: SpeedRow, style: Style, names: tuple[str, str], result: SpeedDiff) -> list[str]:
    out = []
    for index, (side, speed, timed) in enumerate(((names[0], row.a, result.timed_a), (names[1], row.b, result.timed_b))):
        label = _clip(row.label, LABEL - 1) if index == 0 else ""
        head = f"  {label:<{LABEL}}{side:<3}"
        if speed is None:
            out.append(head + style.yellow(f"{'—':>8}  not compiled in {side}" if timed else f"{'—':>8}  not timed"))
            continue
        text = head + _speed_cells(speed, style)
        if index == 1 and row.compiled_ratio is not None:
            text += f"   compiled {names[1]}/{names[0]} {row.compiled_ratio:.2f}×"
        out.append(text)
    out += [_part_line(pair, names) for pair in row.parts]
    return out


def _part_line(pair: PartPair, names: tuple[str, str]) -> str:
    """One part on both sides: eager and compiled per call, and B's compiled over A's with whether it lies inside
    the rounds' spread."""
    def cells(part: PartSpeed | None) -> str:
        if part is None:
            return "—"
        return f"{_time(part.eager_ns)} / {_time(part.compiled_ns)}"

    a, b = names
    text = f"    {pair.part:<{LABEL - 2}}{a} {cells(pair.a)}   {b} {cells(pair.b)}"
    if pair.compiled_ratio is not None:
        spread = {True: ", within the rounds' spread", False: ", beyond the rounds' spread",
                  None: ", no spread measured"}[pair.within_spread]
        text += f"   compiled {b}/{a} {pair.compiled_ratio:.2f}×{spread}"
    return text


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _speed_cells(speed: FunctionSpeed, style: Style) -> str:
    """The headline (the step where timed, else the call), its speedup and verdict."""
    headline = speed.headline
    eager = _time(headline.eager_ns if headline else None)
    compiled = _time(headline.compiled_ns if headline else None)
    speedup = f"{speed.speedup:.2f}×" if speed.speedup is not None else "—"
    speedup = style.red(f"{speedup:>9}") if speed.verdict == "slower" else f"{speedup:>9}"
    return f"{speed.calls:>8,}{eager:>11}{compiled:>11}{speedup}  per {speed.per}: {speed.verdict_said}"


def _profile_lines(row: ProfileRow, style: Style, names: tuple[str, str]) -> list[str]:
    a, b = names
    seen = [f"{side}: {profile.calls} calls" if profile else f"{side}: not profiled"
            for side, profile in ((a, row.a), (b, row.b))]
    lines = ["", style.bold(f"Kernel time by your line: {_clip(row.label, 200)}") + style.dim(
        f"  (torch.profiler, per call; {', '.join(seen)})")]
    if row.lines:
        lines.append(style.dim(f"  {'line':<52}{a:>10}{b:>10}   {b}/{a}"))
    lines += [_line(line) for line in row.lines]
    if row.more_lines:
        lines.append(style.dim(f"  … {row.more_lines} more lines"))
    if not row.lines:
        lines.append(style.dim("  no kernel of this function's compiled graphs was seen on either side"))
    for side, profile in ((a, row.a), (b, row.b)):
        if profile is not None and profile.outside_ns is not None:
            lines.append(style.dim(f"  {side}: {duration(profile.outside_ns)} per call outside the compiled graphs "
                                   f"(of {duration(profile.call_ns)} a profiled call, which the profiler slows)"))
    return lines


def _line(row: LineRow) -> str:
    where = _clip(f"{row.line} `{row.code}`" if row.code else row.line, 51)
    a_text = duration(row.a_ns) if row.a_ns is not None else "—"
    b_text = duration(row.b_ns) if row.b_ns is not None else "—"
    ratio = f"{row.ratio:.2f}×" if row.ratio is not None else ""
    backward = (f"   of it backward {duration(row.a_backward_ns)} / {duration(row.b_backward_ns)}"
                if row.a_backward_ns or row.b_backward_ns else "")
    return f"  {where:<52}{a_text:>10}{b_text:>10}   {ratio}{backward}"


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
