"""The page's "Speed by your code": eager vs compiled per compiled function, a bar per user line of kernel time."""

from __future__ import annotations

from tracers.analysis.report_model import build_report
from tracers.analysis.speed import FunctionProfile, FunctionSpeed, LineTime, Speed
from tracers.tracefile.events import Trace
from tracers.tracefile.speed import WARMUP_CALLS
from tracers.vocabulary.durations import duration

from .text import esc


def render_runtime(trace: Trace, speed: Speed | None = None) -> str:
    """The old call form of :func:`runtime_html` (analyses the trace itself unless given ``speed``)."""
    return runtime_html(speed if speed is not None else build_report(trace).speed)


def runtime_html(speed: Speed | None) -> str:
    """The page's ``runtime`` part: empty-state text for a trace recorded without --vs-eager or --profile."""
    if speed is None:
        return ('<div class="wt-by-code wt-trace-empty">Not timed: trace with <code>--vs-eager</code> (eager vs '
                'compiled per call) or <code>--profile</code> (kernel time by your line).</div>')
    parts = ['<div class="wt-by-code wt-runtime"><h3>Speed by your code</h3>',
             f'<p class="wt-note">Each object torch.compile returned, timed per call at its boundaries '
             f'({esc(speed.timer)}): the median steady-state call, leaving out the calls that compiled, the '
             f'{WARMUP_CALLS} after each{" and the profiled ones" if speed.profiles else ""}'
             + ('; eager is the script run again in a fresh process with compile off, the same calls by order.'
                if speed.eager_status is not None else '.') + '</p>']
    if speed.functions:
        parts.append(_functions(speed.functions))
    parts += [_profile(profile) for profile in speed.profiles]
    parts += [f'<p class="wt-note">{esc(note)}</p>' for note in speed.notes]
    return "".join(parts) + "</div>"


def _functions(functions: tuple[FunctionSpeed, ...]) -> str:
    rows = []
    for function in functions:
        speedup = f"{function.speedup:.2f}×" if function.speedup is not None else "—"
        slower = ' class="wt-num wt-flag"' if function.speedup is not None and function.speedup < 1 else ' class="wt-num"'
        if function.payback_calls is not None:
            payback = f"{function.payback_calls:,} calls" + ("" if function.pays_back else " (not in this run)")
        else:
            payback = "never" if function.saved_ns is not None else "—"
        rows.append(f'<tr><td><code>{esc(function.name)}</code> <span class="wt-muted">{esc(function.site)}</span></td>'
                    f'<td class="wt-num">{function.calls:,}</td><td class="wt-num">{function.steady_calls:,}</td>'
                    f'<td class="wt-num">{_time(function.eager_ns)}</td><td class="wt-num">{_time(function.compiled_ns)}</td>'
                    f'<td{slower}>{speedup}</td><td class="wt-num">{esc(duration(function.compile_ns))}</td>'
                    f'<td>{esc(payback)}</td></tr>')
    return ('<table class="wt-by-code-table"><thead><tr><th>compiled function</th><th>calls</th><th>steady</th>'
            '<th>eager / call</th><th>compiled / call</th><th>speedup</th><th>compile</th><th>pays back after</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _profile(profile: FunctionProfile) -> str:
    widest = max((line.ns_per_call for line in profile.lines), default=0.0) or 1.0
    rows = "".join(_line_row(line, widest) for line in profile.lines)
    extra = []
    if profile.outside_ns is not None:
        extra.append(f"{duration(profile.outside_ns)} per call outside the compiled graphs (of "
                     f"{duration(profile.call_ns)} a profiled call, which the profiler slows): guards, Dynamo's and "
                     "AOTAutograd's wrappers, eager code at graph breaks")
    for use in profile.cudagraphs:
        state = f"{use.replays_per_call:g} CUDA graph replays per call" if use.replays_per_call else "no CUDA graphs"
        extra.append(f"[{use.compile_id}] {state}" + (f"; skipped: {'; '.join(use.skipped)}" if use.skipped else ""))
    if profile.unmatched:
        extra.append("ops no kernel record names: " + ", ".join(
            f"{share.name} {duration(share.ns_per_call)}" for share in profile.unmatched[:8]))
    notes = "".join(f"<li>{esc(item)}</li>" for item in extra)
    table = (f'<table class="wt-by-code-table"><thead><tr><th>your line</th><th>kernel time / call</th><th></th>'
             f'</tr></thead><tbody>{rows}</tbody></table>' if rows else
             '<p class="wt-note">No kernel of this function\'s compiled graphs was seen.</p>')
    return (f'<h4>Kernel time by your line: <code>{esc(profile.name)}</code> '
            f'<span class="wt-muted">torch.profiler over {profile.calls} steady calls '
            f'({esc(", ".join(profile.activities))})</span></h4>{table}'
            + (f'<ul class="wt-lines">{notes}</ul>' if notes else ""))


def _split(lines: int) -> str:
    """Said where a kernel's time is split among lines: the profiler times the kernel, not the lines in it."""
    return f' <span class="wt-muted">(its time split evenly among {lines} lines)</span>' if lines > 1 else ""


def _line_row(line: LineTime, widest: float) -> str:
    where = (f'<code>{esc(line.line.label)}</code> <code>{esc(line.line.code)}</code>' if line.line
             else '<span class="wt-muted">no user line recorded</span>')
    kernels = "".join(f'<li><code>{esc(share.name)}</code> <span class="wt-muted">{esc(share.compile_id or "?")}'
                      f'</span> {esc(duration(share.ns_per_call))}, {share.launches_per_call:g}× per call'
                      f'{_split(share.shared)}</li>' for share in line.kernels)
    count = len(line.kernels)
    bar = (f'<svg class="wt-runtime-bar" viewBox="0 0 100 8" preserveAspectRatio="none" width="160" height="10">'
           f'<rect class="wt-icicle-box" width="{100 * line.ns_per_call / widest:.1f}" height="8"/></svg>')
    return (f'<tr><td>{where}<details><summary class="wt-muted">{count} kernel{"s" if count != 1 else ""}</summary>'
            f'<ul class="wt-lines">{kernels}</ul></details></td><td class="wt-num">{esc(duration(line.ns_per_call))}</td>'
            f'<td>{bar}</td></tr>')
