"""The stage diff of two traces: which stages and targets ran in one and not the other, time per stage, code, speed."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from pathlib import PurePath

from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER

from .code_diff import CodeDiff, code_diff
from .findings import findings
from .findings_diff import FindingChange, findings_diff
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
    differs: bool  # B's script read under A's name, where the two scripts' names differ


@dataclass(frozen=True)
class Renamed:
    """The two runs' scripts under two names (``train.py``, ``train_fixed.py``): B's lines are matched as A's."""

    a: str
    b: str

    def as_a(self, text: str) -> str:
        """``Net.forward (train_fixed.py:21)`` -> ``Net.forward (train.py:21)``."""
        return re.sub(rf"(?<![\w.-]){re.escape(self.b)}(?=:\d)", self.a, text)


@dataclass(frozen=True)
class RunSpeed:
    """How much longer B took than A for the same work: the compiles that compiled the same frame to the same graphs
    and ops in both (one run each, so this is the only measure of the runs' own difference the diff has)."""

    ratio: float  # the median of those compiles' B / A time
    low: float
    high: float
    compiles: int


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
    findings: tuple[FindingChange, ...] = ()  # what went away, appeared or changed (findings_diff.py)
    renamed: Renamed | None = None
    same_work: RunSpeed | None = None  # None: no compile did the same work in both


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


def script_name(trace: Trace) -> str | None:
    """The traced script's file name, from the run's command; None for a log or a ``-m`` run."""
    return next((PurePath(part).name for part in trace.info.command if str(part).endswith(".py")), None)


def renamed(a: Trace, b: Trace) -> Renamed | None:
    names = script_name(a), script_name(b)
    return Renamed(*names) if None not in names and names[0] != names[1] else None


def compile_rows(facts_a: TraceFacts, facts_b: TraceFacts, rename: Renamed | None = None) -> tuple[CompileRow, ...]:
    """Compiles matched by the trace's id (``r1:0/0`` after a reset is not ``0/0``), in compile order."""
    sides_a = {facts.compile_id: _compile_side(facts) for facts in facts_a.compiles}
    sides_b = {facts.compile_id: _compile_side(facts) for facts in facts_b.compiles}

    def differs(a: CompileSide | None, b: CompileSide | None) -> bool:
        if a is None or b is None or rename is None:
            return a != b
        return a != CompileSide(rename.as_a(b.frame), b.graphs, b.ops)

    return tuple(CompileRow(compile_id, sides_a.get(compile_id), sides_b.get(compile_id),
                            differs(sides_a.get(compile_id), sides_b.get(compile_id)))
                 for compile_id in sorted(set(sides_a) | set(sides_b), key=sort_key))


def same_work(facts_a: TraceFacts, facts_b: TraceFacts, rows: tuple[CompileRow, ...]) -> RunSpeed | None:
    """B's time over A's for the compiles that did the same work in both (same frame, graphs and ops)."""
    time_a = {facts.compile_id: facts.time_ns for facts in facts_a.compiles}
    time_b = {facts.compile_id: facts.time_ns for facts in facts_b.compiles}
    ratios = sorted(time_b[row.compile_id] / time_a[row.compile_id] for row in rows
                    if row.a is not None and row.b is not None and not row.differs and row.a.ops is not None
                    and time_a.get(row.compile_id) and time_b.get(row.compile_id))
    if not ratios:
        return None
    return RunSpeed(statistics.median(ratios), ratios[0], ratios[-1], len(ratios))


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
    rename = renamed(a, b)
    compiles = compile_rows(facts_a, facts_b, rename)
    return TraceDiff(
        a_label=label(a), b_label=label(b), stages=rows,
        only_a=tuple(sorted(facts_a.fired - facts_b.fired)),
        only_b=tuple(sorted(facts_b.fired - facts_a.fired)),
        counts=tuple((what, counts_a[what], counts_b[what]) for what in counts_a),
        kernels_a=kernels(a), kernels_b=kernels(b), compiles=compiles,
        code=code_diff(a, b, rename.as_a if rename else None), runtime=speed_diff(a, b),
        findings=findings_diff(findings(a, facts_a), findings(b, facts_b), rename.as_a if rename else None),
        renamed=rename, same_work=same_work(facts_a, facts_b, compiles),
    )
