"""The HTML diff's "Speed by your code": per compiled function eager and compiled per call on each side with the
ratio, and per profiled function the kernel time by user line on each side."""

from __future__ import annotations

from tracers.analysis.speed import FunctionSpeed
from tracers.analysis.speed_diff import ProfileRow, SpeedDiff, SpeedRow
from tracers.vocabulary.durations import duration

from .text import esc


def render_runtime_diff(result: SpeedDiff | None, names: tuple[str, str]) -> str:
    """Empty when neither trace was timed: the diff then has no such part."""
    if result is None:
        return ""
    a, b = names
    untimed = "".join(f'<p class="wt-note">{esc(side)}: traced without <code>--vs-eager</code> or '
                      '<code>--profile</code>.</p>'
                      for side, timed in ((a, result.timed_a), (b, result.timed_b)) if not timed)
    if result.timed_a and result.timed_b and result.timer_a != result.timer_b:
        untimed += (f'<p class="wt-note">{esc(a)} timed by {esc(result.timer_a or "?")}, {esc(b)} by '
                    f'{esc(result.timer_b or "?")}.</p>')
    parts = ['<div class="wt-by-code wt-runtime"><h4>Speed by your code</h4>', untimed]
    if result.functions:
        rows = "".join(_function_rows(row, result, names) for row in result.functions)
        parts.append('<table class="wt-by-code-table wt-diff-runtime"><thead><tr><th>compiled function</th><th></th>'
                     '<th>calls</th><th>eager / call</th><th>compiled / call</th><th>speedup</th>'
                     f'<th title="{esc(b)} compiled time / {esc(a)} compiled time">compiled {esc(b)} / {esc(a)}</th>'
                     f'</tr></thead><tbody>{rows}</tbody></table>')
    parts += [_profile(row, names) for row in result.profiles]
    return "".join(parts) + "</div>"


def _function_rows(row: SpeedRow, result: SpeedDiff, names: tuple[str, str]) -> str:
    ratio = f"{row.compiled_ratio:.2f}×" if row.compiled_ratio is not None else ""
    cells = []
    for side, speed, timed in ((names[0], row.a, result.timed_a), (names[1], row.b, result.timed_b)):
        if speed is None:
            what = f"not compiled in {side}" if timed else "not timed"
            cells.append(f'<td>{esc(side)}</td><td class="wt-muted" colspan="4">{esc(what)}</td>')
        else:
            cells.append(f"<td>{esc(side)}</td>{_speed_cells(speed)}")
    head = (f'<td rowspan="2"><code>{esc(row.name)}</code> <span class="wt-muted">{esc(row.site)}</span></td>')
    return (f'<tr data-function="{esc(row.site)}#{row.order}">{head}{cells[0]}'
            f'<td class="wt-num" rowspan="2">{esc(ratio)}</td></tr><tr>{cells[1]}</tr>')


def _speed_cells(speed: FunctionSpeed) -> str:
    speedup = f"{speed.speedup:.2f}×" if speed.speedup is not None else "—"
    flag = " wt-flag" if speed.speedup is not None and speed.speedup < 1 else ""
    return (f'<td class="wt-num">{speed.calls:,}</td><td class="wt-num">{esc(_time(speed.eager_ns))}</td>'
            f'<td class="wt-num">{esc(_time(speed.compiled_ns))}</td><td class="wt-num{flag}">{esc(speedup)}</td>')


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _profile(row: ProfileRow, names: tuple[str, str]) -> str:
    a, b = names
    seen = ", ".join(f"{side}: {profile.calls} calls" if profile else f"{side}: not profiled"
                     for side, profile in ((a, row.a), (b, row.b)))
    lines = "".join(
        f'<tr><td><code>{esc(line.line)}</code> <code>{esc(line.code)}</code></td>'
        f'<td class="wt-num">{esc(_time(line.a_ns))}</td><td class="wt-num">{esc(_time(line.b_ns))}</td>'
        f'<td class="wt-num">{esc(f"{line.ratio:.2f}×" if line.ratio is not None else "")}</td></tr>'
        for line in row.lines)
    if row.more_lines:
        lines += f'<tr><td class="wt-muted" colspan="4">and {row.more_lines} more lines</td></tr>'
    table = (f'<table class="wt-by-code-table"><thead><tr><th>your line</th><th>{esc(a)} kernel time / call</th>'
             f'<th>{esc(b)} kernel time / call</th><th>{esc(b)} / {esc(a)}</th></tr></thead><tbody>{lines}</tbody>'
             '</table>' if lines else
             '<p class="wt-note">No kernel of this function\'s compiled graphs was seen on either side.</p>')
    return (f'<h5>Kernel time by your line: <code>{esc(row.name)}</code> <span class="wt-muted">{esc(row.site)} · '
            f'torch.profiler, per call ({esc(seen)})</span></h5>{table}')
