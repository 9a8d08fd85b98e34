"""Findings from ``--vs-eager``: a compiled function slower than eager (and the likely cause), or one that never pays back."""

from __future__ import annotations

import re

from tracers.tracefile.events import Trace
from tracers.vocabulary.durations import duration

from .finding_type import Explained, Finding
from .frames import SourceLine
from .speed import FunctionProfile, FunctionSpeed, Speed, speed_of

SLOWER = 1.05  # compiled at least this much slower than eager per call: not noise between two runs' medians
# Between two processes the same training step's median moved by up to this much on a shared 4-GPU host (ResNet-50,
# compiled: 17.6 to 30.7 ms; benchmarks/RESULTS.md, "Speed by your code on the GPU"), and an eager loop bound by its
# kernel launches as much alone on one GPU (a Llama-style model, 23.9 to 40.4 ms; RESULTS.md, "All three again"): a
# smaller slowdown or speedup, measured once on each side, is said with that caveat.
NOISE = 1.75
_ONE_PROCESS = (f" Each side was timed in one process, and on a busy machine separate processes timing the same step "
                f"have differed by up to {NOISE:g}×: ")
TINY_NS = 100_000  # eager calls shorter than this are where a compiled call's fixed overhead shows
RUNTIME_KINDS = frozenset({"slower-than-eager", "never-pays-back"})  # about run time: they cost no compile
MEASURED = Explained("chapters/17-measuring", "Measuring torch.compile", "your-script-compiled-vs-eager")
_SITE = re.compile(r"^(?P<path>.*):(?P<line>\d+)$")


def speed_findings(trace: Trace, speed: Speed | None = None) -> list[Finding]:
    """Per compiled function timed in both runs, on its headline (the whole step where timed, else the call): slower
    than eager, no difference measurable, or faster but not repaid in this run. Only where the rounds' spread allows
    a verdict: with fewer than two rounds of steady calls, nothing is claimed."""
    speed = speed if speed is not None else speed_of(trace)
    if speed is None:
        return []
    profiles = {(profile.site, profile.order): profile for profile in speed.profiles}
    found = []
    for function in speed.compared:
        headline = function.headline
        if headline is None or function.verdict is None:
            continue
        profile = profiles.get((function.site, function.order))
        if function.verdict == "slower" and (headline.compiled_ns or 0) > (headline.eager_ns or 0) * SLOWER:
            found.append(_slower(trace, function, profile))
        elif not function.pays_back:
            found.append(_not_repaid(function))
    return found


def _parts(function: FunctionSpeed) -> str:
    """Where the headline's time came from: each part eager vs compiled, with its rounds' spread."""
    said = []
    for part in (function.forward, function.backward, function.step):
        if part is None or part is function.headline or part.compiled_ns is None or part.eager_ns is None:
            continue
        said.append(f"{part.part} {duration(part.compiled_ns)} vs {duration(part.eager_ns)} "
                    f"({part.speedup:.2f}×, rounds {part.spread_text})")
    return f"; per call: {', '.join(said)}" if said else ""


def _site(function: FunctionSpeed) -> SourceLine | None:
    match = _SITE.match(function.site)
    return SourceLine(match["path"], int(match["line"]), function.name) if match else None


def _slower(trace: Trace, function: FunctionSpeed, profile: FunctionProfile | None) -> Finding:
    headline = function.headline
    compiled, eager = headline.compiled_ns or 0.0, headline.eager_ns or 0.0
    what = (f"`{function.name}` runs {compiled / eager:.1f}× slower compiled than eager: {duration(compiled)} vs "
            f"{duration(eager)} per {function.per} over {headline.steady} steady {function.per}s ({function.timer}; "
            f"every round slower, speedups {headline.spread_text}){_parts(function)}")
    advice = _cause(trace, function, profile)
    if compiled < eager * NOISE:
        advice += _ONE_PROCESS + "trace again before acting on a difference this small."
    return Finding("slower-than-eager", what, headline.steady, function.compile_ids, 0.0,
                   user_line=_site(function), advice=advice, explained=MEASURED)


def _cause(trace: Trace, function: FunctionSpeed, profile: FunctionProfile | None) -> str:
    """The likely cause, from what the trace and the profile show, most certain first."""
    compiled, eager = function.compiled_ns or 0.0, function.eager_ns or 0.0
    graphs = {artifact.compile_id for artifact in trace.artifacts
              if artifact.name == "dynamo_output_graph" and artifact.compile_id in function.compile_ids}
    causes = []
    if profile is not None and profile.outside_ns is not None and profile.outside_ns > profile.call_ns / 2:
        causes.append(f"most of a call is spent outside the compiled graphs ({duration(profile.outside_ns)} of "
                      f"{duration(profile.call_ns)} profiled): guards, Dynamo's and AOTAutograd's wrappers, eager "
                      "code at graph breaks")
    if eager < TINY_NS:
        causes.append(f"per-call overhead on tiny inputs: eager does the work in {duration(eager)}, while every "
                      f"compiled call also checks guards and goes through the compiled wrapper (here "
                      f"{duration(compiled - eager)} more per call); compile a larger piece of work, or leave this "
                      "one eager")
    if len(graphs) > 1 or len(function.compile_ids) > 1:
        causes.append(f"graph-break gaps: its calls run {max(len(graphs), len(function.compile_ids))} compiled "
                      "pieces with eager Python between them; fix the breaks (see the findings above)")
    if function.timer == "cuda events":
        replays = profile is not None and any(use.replays_per_call for use in profile.cudagraphs)
        skips = sorted({reason for use in (profile.cudagraphs if profile else ()) for reason in use.skipped})
        if not replays:
            causes.append("CUDA graphs not used: every kernel is launched one by one from Python"
                          + (f" (torch skipped them: {'; '.join(skips)})" if skips else
                             "; mode=\"reduce-overhead\" records them once and replays them"))
    if not causes:
        causes.append("the compiled kernels themselves: --profile shows the kernel time by your line")
    return "Likely: " + "; ".join(causes) + "."


def _not_repaid(function: FunctionSpeed) -> Finding:
    headline = function.headline
    saved = function.saved_ns or 0.0
    payback = function.payback_calls
    per = function.per
    times = f"{duration(headline.compiled_ns or 0)} vs {duration(headline.eager_ns or 0)}"
    compile_said = f"{duration(function.compile_ns)} ({function.cost.label})" if function.cost else \
        duration(function.compile_ns)
    if payback is None:  # no faster measurably, though not slower beyond the margin: nothing to repay the compile with
        why = (f"no difference measurable here (spread {headline.spread_text} over the rounds)"
               if headline.verdict == "even" else
               f"slower in every round but within {SLOWER - 1:.0%} (speedups {headline.spread_text})")
        what = (f"compiling `{function.name}` gains nothing measurable here: {times} per {per} compiled vs eager, "
                f"{why}, so its {compile_said} compile is not shown to pay back{_parts(function)}")
    else:
        spread = function.payback_range
        within = f" ({spread[0]:,}–{spread[1]:,} at the rounds' speedups {headline.spread_text})" if spread else ""
        what = (f"compiling `{function.name}` does not pay back within the run: {function.speedup:.2f}× faster per "
                f"{per} ({times}) saves {duration(saved)} a {per}; its compile cost {compile_said}, repaid after "
                f"{payback:,} {per}s{within}, and the run made {function.calls:,}{_parts(function)}")
    advice = "Worth it for longer runs only; a warm cache (--cache warm) cuts the compile."
    if payback is not None and function.speedup < NOISE:
        advice += _ONE_PROCESS + "the payback is this run's reading; trace again before relying on it."
    return Finding("never-pays-back", what, function.calls, function.compile_ids, 0.0, user_line=_site(function),
                   advice=advice, explained=MEASURED)
