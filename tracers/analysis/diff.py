"""The stage diff of two traces: which stages and targets ran in one and not the other, time per stage, code, speed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER

from .code_diff import CodeDiff, code_diff
from .speed_diff import SpeedDiff, speed_diff
from .trace_facts import CompileFacts, TraceFacts, analyze

# Kernel names as Inductor writes them into its output code: cpp_fused_* on the CPU, triton_* on the GPU.
_KERNEL = re.compile(r"\b(cpp_fused_\w+|triton_(?:poi|per|red|tem|for)_\w+)\b")


@dataclass(frozen=True)
class StageRow:
    stage: str
    a_ns: int | None  # None: the stage never ran in that trace
    b_ns: int | None
    a_calls: int
    b_calls: int


@dataclass(frozen=True)
class CompileSide:
    """One frame compile as one side saw it."""

    frame: str
    graphs: int
    ops: int | None

    @property
    def text(self) -> str:
        graphs = f"{self.graphs} graph{'s' if self.graphs != 1 else ''}"
        ops = f" · {self.ops} ops" if self.ops is not None else ""
        return f"{self.frame} · {graphs}{ops}"


@dataclass(frozen=True)
class CompileRow:
    """A compile id and what it compiled in each trace (None: that trace has no such compile)."""

    compile_id: str
    a: CompileSide | None
    b: CompileSide | None

    @property
    def differs(self) -> bool:
        return self.a != self.b


@dataclass(frozen=True)
class TraceDiff:
    a_label: str
    b_label: str
    stages: tuple[StageRow, ...]
    only_a: tuple[str, ...]  # targets that fired only in A
    only_b: tuple[str, ...]
    counts: tuple[tuple[str, int, int], ...]  # (what, in A, in B)
    kernels_a: tuple[str, ...]
    kernels_b: tuple[str, ...]
    compiles: tuple[CompileRow, ...] = ()  # one row per compile id of either side, resets kept apart
    code: CodeDiff | None = None  # compile time by your code on each side (code_diff.py)
    runtime: SpeedDiff | None = None  # --vs-eager / --profile on either side (speed_diff.py); None: on neither


def label(trace: Trace) -> str:
    info = trace.info
    return f"{info.device} · torch {info.torch_version} · cache {info.cache_mode}"


def kernel_names(code: str) -> tuple[str, ...]:
    """Distinct kernel names in one piece of generated code, in order of appearance."""
    return tuple(dict.fromkeys(_KERNEL.findall(code)))


def kernels(trace: Trace) -> tuple[str, ...]:
    """Distinct kernel names defined in the generated code, in order of appearance."""
    seen: dict[str, None] = {}
    for artifact in trace.artifacts:
        if artifact.kind == "code" and artifact.payload:
            for name in kernel_names(artifact.payload):
                seen.setdefault(name, None)
    return tuple(seen)


def run_counts(facts: TraceFacts) -> dict[str, int]:
    """What one run did, counted: the rows of the diff's counts table."""
    return {
        "frame compiles": len(facts.compiles),
        "graphs": facts.graph_count,
        "graph breaks": len(facts.graph_breaks),
        "recompiles": len(facts.recompiles),
        "cache hits": sum(counts["hit"] for counts in facts.cache_counts.values()),
    }


def _compile_side(facts: CompileFacts) -> CompileSide:
    return CompileSide(facts.frame or "(frame not recorded)", facts.graphs, facts.op_count)


def compile_rows(facts_a: TraceFacts, facts_b: TraceFacts) -> tuple[CompileRow, ...]:
    """Compiles matched by the trace's id (``r1:0/0`` after a reset is not ``0/0``), in compile order."""
    sides_a = {facts.compile_id: _compile_side(facts) for facts in facts_a.compiles}
    sides_b = {facts.compile_id: _compile_side(facts) for facts in facts_b.compiles}
    return tuple(CompileRow(compile_id, sides_a.get(compile_id), sides_b.get(compile_id))
                 for compile_id in sorted(set(sides_a) | set(sides_b), key=sort_key))


def diff(a: Trace, b: Trace) -> TraceDiff:
    facts_a, facts_b = analyze(a), analyze(b)
    stages = sorted(set(facts_a.stage_time_ns) | set(facts_b.stage_time_ns),
                    key=lambda stage: STAGE_ORDER.get(stage, len(STAGE_ORDER)))
    rows = tuple(
        StageRow(stage, facts_a.stage_time_ns.get(stage), facts_b.stage_time_ns.get(stage),
                 facts_a.stage_calls.get(stage, 0), facts_b.stage_calls.get(stage, 0))
        for stage in stages
    )
    counts_a, counts_b = run_counts(facts_a), run_counts(facts_b)
    return TraceDiff(
        a_label=label(a), b_label=label(b), stages=rows,
        only_a=tuple(sorted(facts_a.fired - facts_b.fired)),
        only_b=tuple(sorted(facts_b.fired - facts_a.fired)),
        counts=tuple((what, counts_a[what], counts_b[what]) for what in counts_a),
        kernels_a=kernels(a), kernels_b=kernels(b), compiles=compile_rows(facts_a, facts_b),
        code=code_diff(a, b), runtime=speed_diff(a, b),
    )
