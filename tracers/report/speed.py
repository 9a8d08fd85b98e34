"""The page's "Speed by your code": eager vs compiled per compiled function, a bar per user line of kernel time."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.analysis.report_model import build_report
from tracers.analysis.speed import FunctionProfile, FunctionSpeed, LineTime, PartSpeed, Speed
from tracers.tracefile.events import Trace
from tracers.tracefile.speed import WARMUP_CALLS
from tracers.vocabulary.durations import duration

from .templating import render


@dataclass(frozen=True)
class PartRow:
    """One part of a compiled function's work (step, forward, backward): eager vs compiled, the rounds' spread."""

    part: str
    steady: str
    eager: str
    compiled: str
    speedup: str
    rounds: str
    slower: bool  # every round slower compiled


@dataclass(frozen=True)
class FunctionRow:
    """One compiled function's rows: the headline part first (the step where timed), what compiling cost, the
    verdict; then the other parts."""

    name: str
    site: str
    calls: str
    steady: str
    eager: str
    compiled: str
    speedup: str
    slower: bool  # compiled slower than eager, every round
    compile: str
    payback: str  # the verdict, as every view says it
    parts: tuple[PartRow, ...] = ()  # the headline first
    compile_label: str = ""  # what the compile figure counts
    layers: tuple[FunctionRow, ...] = ()  # layers compiled one by one at this line, each on its own (folded)


@dataclass(frozen=True)
class KernelView:
    name: str
    compile_id: str
    time: str
    launches: str
    shared: int  # the lines its time is split evenly among (the profiler times the kernel, not the lines in it)


@dataclass(frozen=True)
class LineRow:
    """A user line's kernel time per call, its kernels folded, and its bar's width (viewBox units of 100)."""

    label: str | None  # None: no user line recorded
    code: str
    kernels: tuple[KernelView, ...]
    time: str
    width: str
    forward: str = ""  # the kernel time of the forward and of the compiled backward, apart
    backward: str = ""


@dataclass(frozen=True)
class ProfileView:
    name: str
    calls: int
    activities: str
    lines: tuple[LineRow, ...]
    notes: tuple[str, ...]
    split: bool = False  # some kernel time came from the compiled backward: forward and backward columns


@dataclass(frozen=True)
class RuntimeView:
    timer: str
    warmup: int
    eager: bool  # an eager run was asked for
    functions: tuple[FunctionRow, ...]
    profiles: tuple[ProfileView, ...]
    notes: tuple[str, ...]


def render_runtime(trace: Trace, speed: Speed | None = None) -> str:
    """The old call form of :func:`runtime_html` (analyses the trace itself unless given ``speed``)."""
    return runtime_html(speed if speed is not None else build_report(trace).speed)


def runtime_html(speed: Speed | None) -> str:
    """The page's ``runtime`` part (templates/runtime.html): empty-state text for a trace recorded without
    --vs-eager or --profile."""
    if speed is None:
        return render("runtime.html", view=None)
    view = RuntimeView(speed.timer, WARMUP_CALLS, speed.eager_status is not None,
                       tuple(_function(function) for function in speed.functions),
                       tuple(_profile(profile) for profile in speed.profiles), tuple(speed.notes))
    return render("runtime.html", view=view)


def _function(function: FunctionSpeed) -> FunctionRow:
    speedup = function.headline.ratio if function.headline is not None else "—"
    headline = function.headline
    parts = tuple(_part(part) for part in [headline] + [other for other in (function.step, function.forward,
                                                                           function.backward)
                                                        if other is not None and other is not headline]
                  if part is not None)
    return FunctionRow(function.name, function.site, f"{function.calls:,}", f"{function.steady_calls:,}",
                       _time(function.eager_ns), _time(function.compiled_ns), speedup, function.verdict == "slower",
                       duration(function.compile_ns), function.verdict_said, parts,
                       function.cost.label if function.cost is not None else "",
                       tuple(_function(layer) for layer in function.layers))


def _part(part: PartSpeed) -> PartRow:
    return PartRow(part.part, f"{part.steady:,}", _time(part.eager_ns), _time(part.compiled_ns),
                   part.ratio,
                   part.spread_text if part.compared is not None else "—", part.verdict == "slower")


def _time(ns: float | None) -> str:
    return duration(ns) if ns is not None else "—"


def _profile(profile: FunctionProfile) -> ProfileView:
    widest = max((line.ns_per_call for line in profile.lines), default=0.0) or 1.0
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
    extra += list(profile.reconciled)
    return ProfileView(profile.name, profile.calls, ", ".join(profile.activities),
                       tuple(_line_row(line, widest) for line in profile.lines), tuple(extra),
                       any(line.backward_ns for line in profile.lines))


def _line_row(line: LineTime, widest: float) -> LineRow:
    kernels = tuple(KernelView(share.name, share.compile_id or "backward" if share.phase == "backward"
                               else share.compile_id or "?", duration(share.ns_per_call),
                               f"{share.launches_per_call:g}", share.shared) for share in line.kernels)
    return LineRow(line.line.label if line.line else None, line.line.code if line.line else "", kernels,
                   duration(line.ns_per_call), f"{100 * line.ns_per_call / widest:.1f}", duration(line.forward_ns),
                   duration(line.backward_ns))
