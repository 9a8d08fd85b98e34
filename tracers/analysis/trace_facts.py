"""Facts derived from a trace: the merged call tree, per-compile outcomes, caches and skipped stages."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from tracers.tracefile import compile_identity
from tracers.tracefile.events import Artifact, Span, Trace
from tracers.tracefile.stages import STAGE_ORDER, TARGET_BY_NAME

from .break_evidence import RECORD, unrecorded
from .totals import Totals

# Stages a cache hit makes unnecessary: what the warm run can skip.
CACHE_SKIPS: dict[str, tuple[str, ...]] = {
    "fx_graph": ("lowering", "scheduling", "cpp", "triton", "wrapper", "load"),
    "aotautograd": ("aot", "partition", "inductor", "lowering", "scheduling", "cpp", "triton", "wrapper", "load"),
}


@dataclass
class TreeNode:
    """Calls of one target under one parent path, merged: how often, how long in total."""

    target: str
    stage: str
    calls: int = 0
    total_ns: int = 0
    errors: int = 0
    unfinished: int = 0
    children: list[TreeNode] = field(default_factory=list)

    @property
    def label(self) -> str:
        target = TARGET_BY_NAME.get(self.target)
        return target.short if target else self.target.rsplit(":", 1)[-1]


@dataclass(frozen=True)
class CacheEvent:
    cache: str  # fx_graph or aotautograd
    outcome: str  # hit, miss or bypass
    compile_id: str | None


@dataclass(frozen=True)
class GraphBreak:
    compile_id: str | None
    location: str
    reason: str  # the most specific one torch gave: title, then explanation, then generic reason
    # Dynamo could not resume after this break and ran the whole frame eagerly: torch logs the break but
    # does not count it among its graph breaks (graph_break_reasons), so the totals leave it out too.
    frame_skipped: bool = False
    evidence: str = RECORD  # what shows it: torch's break record, else a restart or a resume function (break_evidence)


@dataclass(frozen=True)
class Recompile:
    compile_id: str | None
    reasons: tuple[str, ...]


@dataclass
class CompileFacts:
    """What happened to one frame compile (one compile id)."""

    compile_id: str
    frame: str | None = None
    user_frame: str | None = None
    stages: set[str] = field(default_factory=set)
    graphs: int = 0
    op_count: int | None = None
    guard_count: int | None = None
    fail_reason: str | None = None
    fail_type: str | None = None  # the exception that ended the compile (compilation_metrics' fail_type)
    fail_line: str | None = None  # ``file.py:12``: the user's line torch names for the failure, where it names one
    suppress_errors: bool | None = None  # torch's config.suppress_errors then: a failed frame ran eager, not raised
    cache: list[CacheEvent] = field(default_factory=list)
    skipped: tuple[str, ...] = ()
    time_ns: int = 0
    restarts: tuple[str, ...] = ()  # why Dynamo threw its trace of this frame away and traced it again
    restart_ns: int = 0  # the tracing those restarts threw away
    calls: int | None = None  # calls its compiled graph served, the compiling one included; None: not counted


@dataclass
class TraceFacts:
    roots: list[TreeNode]
    compiles: list[CompileFacts]
    stage_time_ns: dict[str, int]
    stage_calls: dict[str, int]
    graph_breaks: list[GraphBreak]
    recompiles: list[Recompile]
    cache_counts: dict[str, Counter[str]]
    fired: set[str]

    @property
    def graph_count(self) -> int:
        return sum(compile.graphs for compile in self.compiles)

    @property
    def frame_compiles(self) -> list[CompileFacts]:
        """Compiles of a frame (torch's ``N/M`` ids), not a compiled-autograd capture's own ``!0``."""
        return [facts for facts in self.compiles if "/" in facts.compile_id]

    @property
    def counted_breaks(self) -> list[GraphBreak]:
        """The graph breaks torch counts: not a break it could not resume from (the frame then ran eagerly)."""
        return [graph_break for graph_break in self.graph_breaks if not graph_break.frame_skipped]

    def totals(self) -> Totals:
        """The totals the summary prints, in the shape torch's own counts are read in (capture/torch_counts.py)."""
        return Totals(self.graph_count, len(self.counted_breaks), len(self.frame_compiles), len(self.recompiles))


def build_tree(spans: list[Span]) -> list[TreeNode]:
    """Merge spans into one tree keyed by target under each parent, in first-seen order: every
    compile's steps add up in the same nodes (per-compile facts are in ``CompileFacts``)."""
    children_of: dict[int | None, list[Span]] = defaultdict(list)
    for span in spans:
        children_of[span.parent].append(span)

    def merge(group: list[Span]) -> list[TreeNode]:
        nodes: dict[str, TreeNode] = {}
        grouped_children: dict[str, list[Span]] = defaultdict(list)
        for span in group:
            key = span.target
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = TreeNode(span.target, span.stage)
            node.calls += 1
            node.total_ns += span.duration_ns
            node.errors += span.error is not None
            node.unfinished += span.unfinished
            grouped_children[key].extend(children_of.get(span.id, []))
        for key, node in nodes.items():
            node.children = merge(grouped_children[key])
        return list(nodes.values())

    known = {span.id for span in spans}
    # Threads each have their own roots; a span whose parent is unknown starts a root too.
    roots = [span for span in spans if span.parent is None or span.parent not in known]
    return merge(roots)


def _stage_totals(spans: list[Span]) -> tuple[dict[str, int], dict[str, int]]:
    """Time per stage counting only the outermost span of that stage (nested ones are inside it)."""
    by_id = {span.id: span for span in spans}
    time_ns: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for span in spans:
        calls[span.stage] += 1
        parent = by_id.get(span.parent) if span.parent else None
        inside_same_stage = False
        walked = 0  # a trace built in memory is not checked as a file is (tracefile/checked.py): no cycle loops
        while parent is not None and walked <= len(by_id):
            if parent.stage == span.stage:
                inside_same_stage = True
                break
            parent, walked = (by_id.get(parent.parent) if parent.parent else None), walked + 1
        if not inside_same_stage:
            time_ns[span.stage] += span.duration_ns
    order = sorted(calls, key=lambda stage: STAGE_ORDER.get(stage, len(STAGE_ORDER)))
    return {stage: time_ns[stage] for stage in order}, {stage: calls[stage] for stage in order}


def _cache_event(artifact: Artifact) -> CacheEvent | None:
    name = artifact.name.replace("fx_graph_bundled_cache_hit", "fx_graph_cache_hit")
    for cache in CACHE_SKIPS:
        prefix = f"{cache}_cache_"
        if name.startswith(prefix):
            return CacheEvent(cache, name.removeprefix(prefix), artifact.compile_id)
    return None


CAPTURE_FRAME = "backward captured by compiled autograd"
DDP_SPLIT_CHILD = "optimize_ddp_split_child"
GRAPH_RECORDS = ("dynamo_output_graph", "compiled_autograd_graph")  # one per graph a compile produced


def _last_attempts(trace: Trace) -> dict[str | None, int]:
    """Per compile id, the last of Dynamo's attempts at it that produced a graph (0 when it never restarted)."""
    last: dict[str | None, int] = {}
    for artifact in trace.artifacts:
        if artifact.name in GRAPH_RECORDS:
            attempt = artifact.metadata.get("attempt", 0)
            last[artifact.compile_id] = max(attempt, last.get(artifact.compile_id, 0))
    return last


def _metrics_ns(meta: dict) -> int:
    """A compile's whole time from its compilation_metrics record (0 where it gives none): ``duration_us`` or
    ``end_time_us - start_time_us`` (newer torch), ``entire_frame_compile_time_s`` (older), else Dynamo's cumulative
    compile time."""
    def number(key: str) -> float | None:
        value = meta.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None

    duration_us, start_us, end_us = number("duration_us"), number("start_time_us"), number("end_time_us")
    if duration_us is None and start_us is not None and end_us is not None and end_us >= start_us:
        duration_us = end_us - start_us
    if duration_us is not None:
        return round(duration_us * 1e3)
    seconds = number("entire_frame_compile_time_s")
    if seconds is not None:
        return round(seconds * 1e9)
    cumulative_us = number("dynamo_cumulative_compile_time_us")
    return round(cumulative_us * 1e3) if cumulative_us is not None else 0


def _metrics_frame(meta: dict) -> str:
    """``fn (test_misc.py:9549)``: the compiled frame as compilation_metrics names it."""
    filename = str(meta.get("co_filename") or "?").rsplit("/", 1)[-1]
    line = meta.get("co_firstlineno")
    return f"{meta['co_name']} ({filename}:{line})" if line is not None else f"{meta['co_name']} ({filename})"


FRAME_SKIPPED = "Failed to handle graph break gracefully"  # torch/_dynamo/symbolic_convert.py's wording


def analyze(trace: Trace) -> TraceFacts:
    compiles: dict[str, CompileFacts] = {}

    def compile_facts(compile_id: str) -> CompileFacts:
        if compile_id not in compiles:
            compiles[compile_id] = CompileFacts(compile_id)
        return compiles[compile_id]

    by_id = {span.id: span for span in trace.spans}
    for span in trace.spans:
        if span.compile_id:
            facts = compile_facts(span.compile_id)
            facts.stages.add(span.stage)
            # A capture's own id ("!0") also tags every frame Dynamo is offered and skips during it:
            # name the capture, not the first of those frames.
            capture = span.compile_id.startswith("!") and "/" not in span.compile_id
            facts.frame = facts.frame or (CAPTURE_FRAME if capture else span.frame)
            parent = by_id.get(span.parent) if span.parent else None
            if parent is None or parent.compile_id != span.compile_id:
                facts.time_ns += span.duration_ns  # outermost step of this compile (forward or lazy backward)

    graph_breaks: list[GraphBreak] = []
    recompiles: list[Recompile] = []
    cache_counts: dict[str, Counter[str]] = {cache: Counter() for cache in CACHE_SKIPS}
    last_attempt = _last_attempts(trace)
    metric_times: dict[str, int] = {}  # compile id -> the compile's time as compilation_metrics gives it
    metric_frames: dict[str, str] = {}
    for artifact in trace.artifacts:
        facts = compile_facts(artifact.compile_id) if artifact.compile_id else None
        if artifact.name in GRAPH_RECORDS and facts:
            # A graph built by an attempt that Dynamo then restarted was thrown away: torch does not count it.
            facts.graphs += artifact.metadata.get("attempt", 0) == last_attempt[artifact.compile_id]
        elif artifact.name == DDP_SPLIT_CHILD:
            # torch counts each piece as an intentional graph break (GraphCompileReason in
            # torch/_dynamo/backends/distributed.py appends to graph_break_reasons): count it the same.
            graph_breaks.append(GraphBreak(artifact.compile_id, "DDPOptimizer",
                                           "DDPOptimizer's intentional graph break at a DDP bucket boundary"))
        elif artifact.kind == "break":
            meta = artifact.metadata
            reason = " — ".join(filter(None, (meta.get("title"), meta.get("explanation")))) or meta.get("reason", "?")
            skipped = FRAME_SKIPPED in (artifact.payload or "")
            graph_breaks.append(GraphBreak(artifact.compile_id, meta.get("location", "?"), reason, skipped))
        elif artifact.kind == "recompile":
            reasons = tuple(str(reason) for reason in artifact.metadata.get("reasons", []))
            recompiles.append(Recompile(artifact.compile_id, reasons))
        elif artifact.kind == "metrics" and facts:
            facts.op_count = artifact.metadata.get("graph_op_count", facts.op_count)
            facts.guard_count = artifact.metadata.get("guard_count", facts.guard_count)
            meta = artifact.metadata
            facts.fail_reason = meta.get("fail_reason") or facts.fail_reason
            facts.fail_type = meta.get("fail_type") or facts.fail_type
            if meta.get("fail_user_frame_filename") and meta.get("fail_user_frame_lineno") is not None:
                facts.fail_line = f"{meta['fail_user_frame_filename']}:{meta['fail_user_frame_lineno']}"
            if meta.get("config_suppress_errors") is not None:
                facts.suppress_errors = bool(meta["config_suppress_errors"])
            metric_times[facts.compile_id] = _metrics_ns(meta) or metric_times.get(facts.compile_id, 0)
            if meta.get("co_name"):
                metric_frames.setdefault(facts.compile_id, _metrics_frame(meta))
            facts.restarts = tuple(str(reason) for reason in artifact.metadata.get("restart_reasons") or ()) \
                or facts.restarts
            facts.restart_ns = round(float(artifact.metadata.get("dynamo_time_before_restart_s") or 0) * 1e9) \
                or facts.restart_ns
        elif artifact.kind == "frame" and facts:
            frame = artifact.metadata.get("user_frame")
            if frame:
                facts.user_frame = f"{frame['filename'].rsplit('/', 1)[-1]}:{frame['line']}"
        elif artifact.kind == "cache":
            event = _cache_event(artifact)
            if event:
                cache_counts[event.cache][event.outcome] += 1
                if facts:
                    facts.cache.append(event)

    # Kernel codegen of the other device would not have run anyway: don't count it as skipped,
    # unless this trace shows it running somewhere (a CPU tensor in a CUDA program, say).
    ran_anywhere = {span.stage for span in trace.spans}
    not_expected = {"cuda": {"cpp"}, "cpu": {"triton"}}.get(trace.info.device, set()) - ran_anywhere
    for facts in compiles.values():
        skipped: set[str] = set()
        for event in facts.cache:
            if event.outcome == "hit":
                skipped.update(stage for stage in CACHE_SKIPS[event.cache]
                               if stage not in facts.stages and stage not in not_expected)
        facts.skipped = tuple(sorted(skipped, key=lambda stage: STAGE_ORDER.get(stage, 99)))

    # A log without torch's timed regions (an older torch's, or one cut to its records) still has each compile's
    # metrics: their time stands in for the spans' where no span covers the compile, and their frame names it.
    for compile_id, facts in compiles.items():
        if not facts.stages:
            facts.time_ns = facts.time_ns or metric_times.get(compile_id, 0)
            facts.frame = facts.frame or metric_frames.get(compile_id)

    # Breaks without a record of their own (an older torch logs restarts and resume functions only): counted the
    # same way for a log and a live trace, each once whatever shows it.
    recorded = Counter(b.compile_id for b in graph_breaks if not b.frame_skipped and b.compile_id)
    graph_breaks += [GraphBreak(cid, location, reason, evidence=evidence) for cid, location, reason, evidence
                     in unrecorded(list(compiles.values()), recorded, {b.compile_id for b in graph_breaks})]

    for compile_id, calls in (trace.info.calls_served or {}).items():
        if compile_id in compiles:
            compiles[compile_id].calls = calls

    stage_time, stage_calls = _stage_totals(trace.spans)
    return TraceFacts(
        roots=build_tree(trace.spans),
        compiles=sorted(compiles.values(), key=lambda facts: compile_identity.sort_key(facts.compile_id)),
        stage_time_ns=stage_time,
        stage_calls=stage_calls,
        graph_breaks=graph_breaks,
        recompiles=recompiles,
        cache_counts=cache_counts,
        fired={span.target for span in trace.spans},
    )
