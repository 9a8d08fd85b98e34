"""Speed by your code: eager vs compiled per call of each compiled function, and profiled kernel time by user line."""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile.events import Trace
from tracers.tracefile.stages import TARGET_BY_NAME
from tracers.tracefile.speed import (NO_BACKWARD, WARMUP_CALLS, KernelTime, ProfiledCalls, SpeedRecord, TimedFunction,
                                      compiled_label)
from tracers.vocabulary.durations import duration

from .kernels import Kernel, KernelMap, UserLine, kernel_map
from .one_time import OneTime, one_time
from .speed_layers import layered
from .spread import MIN_PER_ROUND, Compared, Spread, rounds


@dataclass(frozen=True)
class PartSpeed:
    """One part of a compiled object's work per call, over the calls steady in both runs: its forward, its backward
    (the autograd nodes its forward made), or the step (from one call's start to the next one's)."""

    part: str  # "forward", "backward" or "step"
    steady: int  # calls (or steps) that count
    compiled_ns: float | None  # median, compiled
    eager_ns: float | None  # median, eager; None: no eager run, or the part never ran there
    compared: Compared | None  # round by round, where both sides have it

    @property
    def speedup(self) -> float | None:
        return self.eager_ns / self.compiled_ns if self.compiled_ns and self.eager_ns is not None else None

    @property
    def ratio(self) -> str:
        """The speedup as the tables show it: ``1.84×``, or ``—`` where no spread was measured (too few steady calls
        for two rounds: one pair of medians over so few calls is no verdict, warm-up noise included)."""
        return f"{self.speedup:.2f}×" if self.speedup is not None and self.verdict is not None else "—"

    @property
    def verdict(self) -> str | None:
        """``faster``, ``slower``, ``even`` (no difference measurable), or None (no spread measured)."""
        return self.compared.verdict if self.compared is not None else None

    @property
    def spread_text(self) -> str:
        return self.compared.range_text if self.compared is not None else "not measured"


@dataclass(frozen=True)
class CompileCost:
    """What compiling one object cost: the compile table's time for its compiles (the forward's, at the frame
    callback, and a backward AOTAutograd compiled lazily, at its first run), less one-time setup of the process."""

    forward_ns: int
    backward_ns: int  # lazily compiled backward: in the compile table's row, run at the first .backward()
    setup_ns: int  # left out: any first compile of a process pays it
    source: str  # "compile table" or "calls" (no compile spans: the compiling calls' time beyond a steady one's)

    @property
    def ns(self) -> int:
        return max(0, self.forward_ns + self.backward_ns - self.setup_ns)

    @property
    def label(self) -> str:
        """What the figure counts, in words."""
        if self.source == "calls":
            return "the compiling calls' time beyond a steady call's"
        parts = [f"forward {duration(self.forward_ns)}"]
        if self.backward_ns:
            parts.append(f"backward {duration(self.backward_ns)} (compiled lazily, at the first .backward())")
        said = " + ".join(parts)
        return said + (f", less {duration(self.setup_ns)} one-time setup" if self.setup_ns else "")


@dataclass(frozen=True)
class FunctionSpeed:
    """One compiled function: its calls in the traced run, matched by call order with the same calls run eager."""

    site: str  # the torch.compile call: ``path:line``
    order: int
    name: str
    calls: int  # calls the script made of it (the traced run)
    eager_calls: int | None  # the same in the run with compile off; None: no eager run
    compiling_calls: int
    steady_calls: int  # calls timed in both runs' steady state (warm-up and profiled calls left out)
    compiled_ns: float | None  # median time per steady call (its forward), compiled
    eager_ns: float | None  # ... and eager, over the same calls
    compile_ns: int  # what compiling it cost: ``cost.ns``, the figure the compile table and the findings use too
    compile_ids: tuple[str, ...]
    timer: str  # "cuda events" or "perf_counter"
    setup_ns: int = 0  # one-time setup of the process that ran inside its compiles (analysis/one_time.py), left out
    forward: PartSpeed | None = None
    backward: PartSpeed | None = None  # None: no backward ran in the compiled run
    step: PartSpeed | None = None  # None: fewer than two calls
    cost: CompileCost | None = None
    # Layers compiled one by one at one line (speed_layers.py): this row sums them per step; each layer's own here.
    layers: tuple[FunctionSpeed, ...] = ()

    @property
    def label(self) -> str:
        return compiled_label(self.name, self.site)

    @property
    def headline(self) -> PartSpeed | None:
        """What the speedup and payback speak for: the whole step where both runs timed one, else the call."""
        if self.step is not None and self.step.speedup is not None:
            return self.step
        return self.forward

    @property
    def per(self) -> str:
        """``step`` or ``call``: what one headline time is."""
        headline = self.headline
        return "step" if headline is not None and headline.part == "step" else "call"

    @property
    def speedup(self) -> float | None:
        """Eager time over compiled time for the headline (above 1: compiling made it faster)."""
        headline = self.headline
        return headline.speedup if headline is not None else None

    @property
    def verdict(self) -> str | None:
        headline = self.headline
        return headline.verdict if headline is not None else None

    @property
    def saved_ns(self) -> float | None:
        """Per step (or call), what compiling saves (negative: what it costs)."""
        headline = self.headline
        if headline is None or headline.compiled_ns is None or headline.eager_ns is None:
            return None
        return headline.eager_ns - headline.compiled_ns

    @property
    def payback_calls(self) -> int | None:
        """Steps (or calls) it takes for the time saved to repay the compile; None unless measurably faster (or,
        with no spread measured, faster by the medians)."""
        saved = self.saved_ns
        if saved is None or saved <= 0 or self.verdict in ("even", "slower"):
            return None
        return max(1, math.ceil(self.compile_ns / saved))

    @property
    def payback_range(self) -> tuple[int, int] | None:
        """The payback at the rounds' highest and lowest speedup (fewest, most steps); None without rounds."""
        headline = self.headline
        if self.payback_calls is None or headline is None or headline.compared is None:
            return None
        compiled = headline.compiled_ns or 0.0
        spans = [compiled * (ratio - 1) for ratio in (headline.compared.high, headline.compared.low)]
        if min(spans) <= 0:
            return None
        return max(1, math.ceil(self.compile_ns / spans[0])), max(1, math.ceil(self.compile_ns / spans[1]))

    @property
    def pays_back(self) -> bool | None:
        """Whether the run made enough calls to repay the compile; None without an eager time."""
        if self.saved_ns is None:
            return None
        return self.payback_calls is not None and self.payback_calls <= self.calls

    @property
    def verdict_said(self) -> str:
        """The verdict in words, as every view says it: only what the rounds' spread allows."""
        headline = self.headline
        if headline is None or headline.speedup is None:
            return "—"
        if headline.verdict is None:
            return (f"no verdict: {headline.steady} steady {self.per}{'' if headline.steady == 1 else 's'}, "
                    f"{2 * MIN_PER_ROUND} needed (two rounds)")
        if headline.verdict == "slower":
            return "slower"
        if headline.verdict == "even":
            return f"no difference measurable here (spread {headline.spread_text})"
        payback = self.payback_calls
        if payback is None:
            return "never"
        spread = self.payback_range
        said = f"pays back after {payback:,} {self.per}s" + (f" ({spread[0]:,}–{spread[1]:,})" if spread else "")
        return said + ("" if self.pays_back else ", not in this run")


@dataclass(frozen=True)
class KernelShare:
    """A kernel's time per call that went to one line (a kernel made from several lines is shared among them)."""

    name: str
    compile_id: str | None
    ns_per_call: float
    launches_per_call: float
    shared: int = 1  # the lines its time is split evenly among (the profiler times a kernel, not a line)
    phase: str = "forward"  # "backward": run by the compiled backward (its nodes carry the forward's lines)


@dataclass(frozen=True)
class LineTime:
    """One user line and the profiled kernel time per call of the code compiled from it."""

    line: UserLine | None  # None: kernels with no user line recorded
    ns_per_call: float  # forward and backward together
    kernels: tuple[KernelShare, ...]

    @property
    def forward_ns(self) -> float:
        return sum(share.ns_per_call for share in self.kernels if share.phase != "backward")

    @property
    def backward_ns(self) -> float:
        """Kernel time per call of the compiled backward that came from this line (AOTAutograd gives each backward
        node the stack of the forward node with its ``seq_nr``, so Inductor's kernels carry the forward's line)."""
        return sum(share.ns_per_call for share in self.kernels if share.phase == "backward")


@dataclass(frozen=True)
class CudaGraphUse:
    """Per compiled region: CUDA graph replays per call the profiler saw, and why torch skipped CUDA graphs."""

    compile_id: str
    replays_per_call: float
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class FunctionProfile:
    """A ``--profile`` pass over one compiled function's steady-state calls."""

    site: str
    order: int
    name: str
    calls: int
    call_ns: float  # wall time per profiled call (the profiler slows it)
    graph_ns: float | None  # of it, inside compiled graphs; None where no Inductor graph ran
    lines: tuple[LineTime, ...]  # most time first
    unmatched: tuple[KernelShare, ...]  # ops the profiler saw inside a compiled graph that no kernel record names
    cudagraphs: tuple[CudaGraphUse, ...]
    activities: tuple[str, ...]
    backward_ns: float | None = None  # wall time per profiled call's backward (None: no backward ran in the window)
    backward_graph_ns: float | None = None  # of it, inside the compiled backward graph
    step_ns: float | None = None  # the window's wall time per profiled call: whole steps, the backward's included
    streams: int = 1  # CUDA streams the profiled kernels ran on

    @property
    def forward_kernel_ns(self) -> float:
        return sum(line.forward_ns for line in self.lines) + sum(
            share.ns_per_call for share in self.unmatched if share.phase != "backward")

    @property
    def backward_kernel_ns(self) -> float:
        return sum(line.backward_ns for line in self.lines) + sum(
            share.ns_per_call for share in self.unmatched if share.phase == "backward")

    @property
    def reconciled(self) -> tuple[str, ...]:
        """How the kernel time per call adds up against the time measured around it, forward and backward apart;
        what exceeds its bound says why."""
        said = []
        cuda = "cuda" in self.activities
        overlap = (f"kernels on {self.streams} CUDA streams overlap in time, so their times add up to more than the "
                   "wall time" if self.streams > 1 else "")
        parts = [("forward", self.forward_kernel_ns, self.call_ns, "a profiled call")]
        if self.backward_ns is not None:
            parts.append(("backward", self.backward_kernel_ns, self.backward_ns, "a profiled backward"))
        for part, kernels, bound, what in parts:
            if not kernels:
                continue
            text = f"{part}: {duration(kernels)} of kernels per call, {duration(bound)} {what}"
            if kernels > bound * 1.01:
                why = overlap or ("the GPU runs them after the host has moved on (asynchronous launches): read them "
                                  "against the step" if cuda else "the profiler's inclusive CPU times nest")
                text += f" (more: {why})"
            said.append(text)
        if self.step_ns is not None and (self.forward_kernel_ns or self.backward_kernel_ns):
            total = self.forward_kernel_ns + self.backward_kernel_ns
            text = f"together {duration(total)} of the step's {duration(self.step_ns)} per profiled call"
            if total > self.step_ns * 1.01:
                text += f" (more: {overlap or 'the profiler counts nested kernel times twice'})"
            said.append(text)
        return tuple(said)

    @property
    def outside_ns(self) -> float | None:
        """Per call, host time outside the compiled graphs: guards, Dynamo's and AOTAutograd's wrappers, eager code
        at graph breaks."""
        return None if self.graph_ns is None else max(0.0, self.call_ns - self.graph_ns)

    @property
    def label(self) -> str:
        return compiled_label(self.name, self.site)


@dataclass(frozen=True)
class Speed:
    functions: tuple[FunctionSpeed, ...]
    profiles: tuple[FunctionProfile, ...]
    timer: str
    eager_status: str | None  # None: no eager run (--profile alone, or a traced block)
    notes: tuple[str, ...]  # what could not be measured, and why

    @property
    def compared(self) -> tuple[FunctionSpeed, ...]:
        """The functions timed in both runs."""
        return tuple(function for function in self.functions if function.speedup is not None)


def speed_of(trace: Trace, kernels: KernelMap | None = None) -> Speed | None:
    """The trace's speed facts; None when it was recorded without ``--vs-eager`` or ``--profile``."""
    record = SpeedRecord.from_json(trace.info.runtime)
    if record is None:
        return None
    notes = [note for note in (record.compiled.note, record.profile_note) if note]
    eager_layers = {combined.key: (combined, members) for combined, members in layered(record.eager.functions)} \
        if record.eager else {}
    eager = {key: combined for key, (combined, _) in eager_layers.items()}
    eager_one = {function.key: function for function in record.eager.functions} if record.eager else {}
    if record.eager is not None and record.eager.note:
        notes.append(f"eager run ({record.eager.status}): {record.eager.note}")
    functions = []
    setup = one_time(trace)
    costs = compile_times(trace)
    for compiled, members in layered(record.compiled.functions):
        other = eager.pop(compiled.key, None)
        layers = tuple(_speed(member, eager_one.get(member.key), setup, costs) for member in members)
        functions.append(dataclasses.replace(_speed(compiled, other, setup, costs), layers=layers))
        if other is not None and other.calls != compiled.calls:
            notes.append(f"{compiled_label(compiled.name, compiled.site)}: {compiled.calls} calls compiled, "
                         f"{other.calls} eager; matched by order over the first "
                         f"{min(compiled.calls, other.calls)} (the eager run took another path, or called the module "
                         "itself elsewhere: compile off hands the module back)")
    notes += [f"{compiled_label(function.name, function.site)}: compiled only in the eager run"
              for function in eager.values()]
    notes += [f"{function.label}: its compile leaves out {duration(function.setup_ns)} of one-time setup that ran "
              "in its compiles (any first compile in a process pays it; the findings' one-time note says what it was)"
              for function in functions if function.setup_ns >= 1_000_000]
    notes += [f"{function.label}: its compile is {duration(function.compile_ns)}: {function.cost.label}"
              for function in functions if function.cost is not None and function.cost.source == "compile table"
              and (function.cost.backward_ns or function.cost.setup_ns)]
    if record.eager is None and record.compiled.functions and not record.profiles:
        notes.append("no eager run to compare with")
    profiles = ()
    if record.profiles:
        kernels = kernels if kernels is not None else kernel_map(trace)
        skips = _cudagraph_skips(trace)
        names = {function.key: function.name for function in record.compiled.functions}
        owned = {function.key: function.compile_ids for function in record.compiled.functions}
        profiles = tuple(_profile(profiled, names.get((profiled.site, profiled.order), "?"), kernels, skips,
                                  owned.get((profiled.site, profiled.order), ()))
                         for profiled in record.profiles)
    return Speed(tuple(functions), profiles, record.compiled.timer,
                   record.eager.status if record.eager else None, tuple(notes))


def steady_indices(compiled: TimedFunction, eager: TimedFunction | None) -> list[int]:
    """Calls in the steady state of both runs: not a compiling call nor the WARMUP_CALLS after one, not profiled."""
    last = min(compiled.calls, eager.calls) if eager is not None else compiled.calls
    left_out = set(compiled.profiled) | (set(eager.profiled) if eager is not None else set())
    for index in compiled.compiling:
        left_out.update(range(index, index + 1 + WARMUP_CALLS))
    if not compiled.compiling:  # nothing compiled while timed (a warm process): the first calls still warm up
        left_out.update(range(WARMUP_CALLS))
    return [index for index in range(last) if index not in left_out]


def _median(times: tuple[int, ...], indices: list[int]) -> float | None:
    return float(statistics.median(times[index] for index in indices)) if indices else None


def _part(part: str, compiled: tuple[int, ...], eager: tuple[int, ...] | None, indices: list[int]) -> PartSpeed:
    """One part over ``indices`` (those both runs have), cut into the same rounds on both sides."""
    compiled_ns = _median(compiled, indices)
    eager_ns = _median(eager, indices) if eager is not None else None
    compared = None
    if eager is not None and indices and compiled_ns:
        cut = rounds(indices)
        compared = Compared(Spread(tuple(round(_median(eager, chunk) or 0) for chunk in cut)),
                            Spread(tuple(round(_median(compiled, chunk) or 0) for chunk in cut)),
                            eager_ns or 0.0, compiled_ns)
    return PartSpeed(part, len(indices), compiled_ns, eager_ns, compared)


def _backward(compiled: TimedFunction, eager: TimedFunction | None, steady: list[int]) -> PartSpeed | None:
    times = compiled.backward_ns
    ran = [index for index in steady if index < len(times) and times[index] != NO_BACKWARD]
    if not ran:
        return None
    other = eager.backward_ns if eager is not None and eager.backward_ns else None
    if other is not None:
        both = [index for index in ran if index < len(other) and other[index] != NO_BACKWARD]
        if both:
            return _part("backward", times, other, both)
    return _part("backward", times, None, ran)


def _step(compiled: TimedFunction, eager: TimedFunction | None, steady: list[int]) -> PartSpeed | None:
    """Steps that start at a steady call and end at the next call, itself not profiled (the profiler's start or
    stop sits in the step before and after its window)."""
    last = min(len(compiled.step_ns), len(eager.step_ns)) if eager is not None else len(compiled.step_ns)
    if eager is not None and not eager.step_ns:
        last = len(compiled.step_ns)
        eager = None
    profiled = set(compiled.profiled) | (set(eager.profiled) if eager is not None else set())
    indices = [index for index in steady if index < last and index + 1 not in profiled]
    if not indices:
        return None
    return _part("step", compiled.step_ns, eager.step_ns if eager is not None else None, indices)


def compile_times(trace: Trace) -> dict[str, tuple[int, int]]:
    """Per compile id, the compile table's time (each outermost span of the compile, analysis/trace_facts.py), split
    into the forward's (under Dynamo's frame callback) and the rest (a backward AOTAutograd compiled lazily)."""
    by_id = {span.id: span for span in trace.spans}
    times: dict[str, list[int]] = {}
    for span in trace.spans:
        if not span.compile_id:
            continue
        parent = by_id.get(span.parent) if span.parent else None
        if parent is None or parent.compile_id != span.compile_id:
            entry = times.setdefault(span.compile_id, [0, 0])
            entry[0 if span.target == _FRAME_CALLBACK else 1] += span.duration_ns
    return {compile_id: (forward, backward) for compile_id, (forward, backward) in times.items()}


_FRAME_CALLBACK = "torch._dynamo.convert_frame:ConvertFrame.__call__"
assert _FRAME_CALLBACK in TARGET_BY_NAME  # the frame callback the stages table hooks (capture/calls.py's TARGET)


def _speed(compiled: TimedFunction, eager: TimedFunction | None, setup: OneTime,
           costs: dict[str, tuple[int, int]]) -> FunctionSpeed:
    steady = steady_indices(compiled, eager)
    forward = _part("forward", compiled.times_ns, eager.times_ns if eager is not None else None, steady)
    host_steady = _median(compiled.host_ns, steady) or 0.0
    compiling_ns = round(sum(max(0.0, compiled.host_ns[index] - host_steady) for index in compiled.compiling))
    # The process's one-time setup sat in the first compile, whichever function that was: not this function's cost.
    setup_all = sum(setup.within(compile_id) for compile_id in compiled.compile_ids)
    spans = [costs[compile_id] for compile_id in compiled.compile_ids if compile_id in costs]
    if spans:  # the compile table's figure, so the speed table, the compile table and the findings agree
        forward_ns, backward_ns = sum(f for f, _ in spans), sum(b for _, b in spans)
        cost = CompileCost(forward_ns, backward_ns, min(setup_all, forward_ns + backward_ns), "compile table")
    else:
        cost = CompileCost(compiling_ns, 0, min(setup_all, compiling_ns), "calls")
    return FunctionSpeed(compiled.site, compiled.order, compiled.name, compiled.calls,
                         eager.calls if eager is not None else None, len(compiled.compiling), len(steady),
                         forward.compiled_ns, forward.eager_ns, cost.ns, compiled.compile_ids,
                         "cuda events" if compiled.device_ns is not None else "perf_counter", cost.setup_ns,
                         forward, _backward(compiled, eager, steady), _step(compiled, eager, steady), cost)


_EXTERN = re.compile(r"(?:^aten::|^extern_kernels\.|\baten\.)(\w+)")


def _op(name: str) -> str | None:
    """``aten::addmm`` and ``extern_kernels.addmm`` (or ``torch.ops.aten.addmm.default``) name the same op."""
    match = _EXTERN.search(name)
    return match.group(1) if match else None


def _profile(profiled: ProfiledCalls, name: str, kernels: KernelMap, skips: dict[str, tuple[str, ...]],
             compile_ids: tuple[str, ...] = ()) -> FunctionProfile:
    calls = max(1, profiled.calls)
    op_side = [kernel for kernel in profiled.kernels if kernel.side == "op"]
    seen = {kernel.name for kernel in op_side}
    # A GPU kernel the wrapper launched has its launch in the op list; one replayed inside a CUDA graph has not.
    chosen = op_side + [kernel for kernel in profiled.kernels if kernel.side == "device" and kernel.name in
                        {k.name for k in kernels.generated} and kernel.name not in seen]
    by_line: dict[UserLine | None, list[KernelShare]] = {}
    unmatched = []
    for timed in chosen:
        matches = _matching(timed, kernels, compile_ids)
        if not matches:
            unmatched.append(KernelShare(timed.name, timed.compile_id, timed.total_ns / calls, timed.count / calls,
                                         1, timed.phase))
            continue
        for kernel in matches:
            share = timed.total_ns / len(matches)
            lines: Iterable[UserLine | None] = kernel.lines or (None,)
            lines = tuple(lines)
            launches = timed.count / len(matches) / calls
            if kernel.extern and len(kernel.nodes) > 1:
                # One extern record stands for several calls (two addmm, one per Linear): each line made its own
                # calls, so the launches divide among the lines as the time does. A fused kernel runs once for all.
                launches /= len(lines)
            for line in lines:
                by_line.setdefault(line, []).append(KernelShare(
                    kernel.name, kernel.compile_id, share / len(lines) / calls, launches, len(lines), timed.phase))
    lines = sorted((LineTime(line, sum(share.ns_per_call for share in shares),
                             tuple(sorted(shares, key=lambda share: -share.ns_per_call)))
                    for line, shares in by_line.items()), key=lambda line_time: -line_time.ns_per_call)
    graphs = [CudaGraphUse(compile_id, count / calls, skips.get(compile_id, ()))
              for compile_id, count in sorted(profiled.cudagraph_replays.items())]
    graphs += [CudaGraphUse(compile_id, 0.0, reasons) for compile_id, reasons in sorted(skips.items())
               if compile_id not in profiled.cudagraph_replays and "cuda" in profiled.activities]
    backward = profiled.backward_ns / profiled.backward_calls if profiled.backward_calls else None
    return FunctionProfile(profiled.site, profiled.order, name, profiled.calls, profiled.call_ns / calls,
                           profiled.graph_ns / calls if profiled.graph_calls else None, tuple(lines),
                           tuple(sorted(unmatched, key=lambda share: -share.ns_per_call)), tuple(graphs),
                           profiled.activities, backward,
                           profiled.backward_graph_ns / profiled.backward_calls if profiled.backward_calls else None,
                           profiled.window_ns / calls if profiled.window_ns else None, profiled.streams)


def _matching(timed: KernelTime, kernels: KernelMap, compile_ids: tuple[str, ...] = ()) -> list[Kernel]:
    """The kernel records a profiled kernel or op stands for: same name (an extern call: same op), same compile
    where the profiler placed it in a compiled region. A backward's kernels run in no Dynamo region: they are looked
    for among the profiled function's own compiles (``compile_ids``), where it has some. (A kernel record does not
    say whether the forward's or the backward's graph wrote it: an extern op of both, or a generated name both
    graphs used, is shared among their lines.)"""
    op = _op(timed.name)
    found = []
    for kernel in kernels.kernels:
        if timed.compile_id is not None and kernel.compile_id != timed.compile_id:
            continue
        if timed.compile_id is None and compile_ids and kernel.compile_id not in compile_ids:
            continue
        if kernel.name == timed.name or (op is not None and kernel.extern and _op(kernel.name) == op):
            found.append(kernel)
    return found


def _cudagraph_skips(trace: Trace) -> dict[str, tuple[str, ...]]:
    skips: dict[str, list[str]] = {}
    for artifact in trace.artifacts:
        if artifact.name == "cudagraph_skip":
            skips.setdefault(artifact.compile_id or "?", []).append(str(artifact.metadata.get("reason", "?")))
    return {compile_id: tuple(dict.fromkeys(reasons)) for compile_id, reasons in skips.items()}
