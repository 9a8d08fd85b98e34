"""Findings: a trace's root causes (breaks, recompiles, limits, thrown-away work, cache misses), grouped and costed."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile import compile_identity
from tracers.tracefile.events import Artifact, Trace
from tracers.tracefile.stages import STAGE_BY_ID

from .trace_facts import DDP_SPLIT_CHILD, FRAME_SKIPPED, CompileFacts, TraceFacts, analyze
from .frames import SourceLine, short, traceback_lines, user_and_library


@dataclass(frozen=True)
class Explained:
    """Where the walkthrough explains the mechanism: a chapter (docs path) and, where one fits, a section."""

    chapter: str  # e.g. chapters/05-graph-breaks
    title: str
    section: str = ""  # the heading's anchor in that chapter

    @property
    def path(self) -> str:
        return f"{self.chapter}#{self.section}" if self.section else self.chapter


@dataclass(frozen=True)
class Finding:
    """One root cause: what happened, where in the user's code, how many events it groups, what it cost, the fix."""

    kind: str  # graph-break, frame-skipped, recompile, recompile-limit, thrown-away, cache-miss, slow-stage
    what: str  # one line: what happened
    events: int  # the events it groups (breaks, recompiles, compiles)
    compile_ids: tuple[str, ...]
    cost_s: float  # compile seconds these events caused or threw away
    user_line: SourceLine | None = None  # the user's own line
    library_line: SourceLine | None = None  # the library line reached from it, where that is where it happened
    graphs_added: int = 0
    no_graph: tuple[str, ...] = ()  # of its compiles, those that traced the frame and produced no graph
    eager_calls: int | None = None  # calls that ran eager because of it; None: none, or not countable
    eager_note: str | None = None  # why eager calls were not counted
    explanation: str | None = None  # torch's own explanation
    hint: str | None = None  # torch's own hint
    torch_link: str | None = None  # torch's page for this graph break
    graph_break_id: str | None = None  # torch's id of this kind of graph break, e.g. GB0291
    advice: str | None = None  # ours, where torch gives no hint
    explained: Explained | None = None
    informational: bool = False  # not waste: shown after the problems

    @property
    def where(self) -> str | None:
        """``modeling_utils.py:4778 via train.py:7``: the library line reached from the user's."""
        if self.library_line and self.user_line:
            return f"{self.library_line.short} via {self.user_line.short}"
        line = self.user_line or self.library_line
        return line.short if line else None

    @property
    def events_text(self) -> str:
        """``compiles 0/1, 0/2; 2 graphs added``, and why calls that ran eager were not counted, where they were not."""
        parts = []
        if self.compile_ids:
            parts.append(f"compile{'s' if len(self.compile_ids) != 1 else ''} {', '.join(self.compile_ids)}")
        if self.no_graph:
            parts.append(f"{', '.join(self.no_graph)} traced the frame and produced no graph")
        if self.graphs_added:
            parts.append(f"{self.graphs_added} graph{'s' if self.graphs_added != 1 else ''} added")
        if self.eager_note and self.eager_calls is None:
            parts.append(self.eager_note)
        return "; ".join(parts)

    @property
    def key(self) -> tuple[str, str, str | None]:
        """The same finding in another process's trace has the same key (its numbers may differ)."""
        return self.kind, re.sub(r"\d+(\.\d+)?", "#", self.what), self.where

    @property
    def fix(self) -> str | None:
        """Ours where we know better for this case (a limit hit by identity guards), else torch's own hint."""
        return self.advice or self.hint

    @property
    def cost(self) -> str:
        """``2.51 s of compile, 15 calls ran eager``, or empty."""
        parts = [f"{format_seconds(self.cost_s)} of compile"] if self.cost_s >= 0.0005 else []
        if self.eager_calls:
            parts.append(f"{self.eager_calls} call{'s' if self.eager_calls != 1 else ''} ran eager")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return f"{self.what}{where}" + (f" — {self.cost}" if self.cost else "")


def format_seconds(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.0f} ms"


# Where each kind of finding is explained. The sections are MyST heading anchors of the chapters (a test checks them).
BREAKS = Explained("chapters/05-graph-breaks", "Graph breaks", "how-dynamo-splits-a-frame")
RECOMPILES = Explained("chapters/04-guards", "Guards and recompiles", "guard-failure-and-recompilation")
SHAPES = Explained("chapters/06-dynamic-shapes", "Dynamic shapes", "a-size-changes-automatic-dynamic")
LIMIT = Explained("chapters/04-guards", "Guards and recompiles", "the-recompile-limit")
RESTARTS = Explained("chapters/02-frame-evaluation", "Frame evaluation (PEP 523)", "")
CACHES = Explained("chapters/14-caches", "Caches", "when-the-cache-misses")
DISTRIBUTED = Explained("chapters/19-distributed", "Distributed: DDP, FSDP and compile")

_HINT = re.compile(r"^\s*Hint:\s*(.+)$", re.M)
_EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.M)
_GB_LINK = re.compile(r"(https://\S+/gb/(gb\d+)\.html)")
_LIMIT = re.compile(r"recompile[_ ]limit|cache[_ ]size[_ ]limit", re.I)
_LIMIT_VALUE = re.compile(r"currently set to (\d+)")
_RESUME = re.compile(r"^torch_dynamo_resume_in_(\w+?)_at_(\d+)\b")
_GUARD_LINE = re.compile(r"#\s*(.*?)\s*#\s*(\S+\.py):(\d+) in (\w+)")  # "... # code  # file.py:5 in fn"


def findings(trace: Trace, facts: TraceFacts | None = None) -> list[Finding]:
    """The trace's findings, problems by cost first, then what is worth knowing (a dominant stage)."""
    facts = facts if facts is not None else analyze(trace)
    compiles = {compile_facts.compile_id: compile_facts for compile_facts in facts.compiles}
    found: list[Finding] = []
    claimed: set[str] = set()  # compiles whose cost a finding already counts
    found += _break_findings(trace, compiles, claimed)
    found += _recompile_findings(trace, facts, compiles, claimed)
    found += _thrown_away(compiles, claimed)
    found += _cache_misses(trace, facts, compiles)
    problems = sorted(found, key=lambda finding: (-finding.cost_s, -(finding.eager_calls or 0), -finding.events))
    from .runtime_findings import runtime_findings  # --vs-eager's; it builds on this module's Finding

    problems += runtime_findings(trace)
    return problems + _ddp_splits(trace) + _dominant_stage(trace, facts)


def headline(found: list[Finding], facts: TraceFacts) -> str:
    """One line for a clean run, or how many findings there are."""
    problems = [finding for finding in found if not finding.informational]
    if not problems:
        return (f"No problems found: {facts.graph_count} graph{'s' if facts.graph_count != 1 else ''}, no graph "
                "breaks, no recompiles, nothing ran eager.")
    cost = sum(finding.cost_s for finding in problems)
    return f"{len(problems)} finding{'s' if len(problems) != 1 else ''}, {format_seconds(cost)} of compile in all"


# -- graph breaks ---------------------------------------------------------------------------------------------

def _break_findings(trace: Trace, compiles: dict[str, CompileFacts], claimed: set[str]) -> list[Finding]:
    groups: dict[tuple[str, str, bool], list[Artifact]] = defaultdict(list)
    for artifact in trace.artifacts:
        if artifact.kind == "break":
            meta = artifact.metadata
            title = meta.get("title") or meta.get("reason") or "?"
            skipped = FRAME_SKIPPED in (artifact.payload or "")
            groups[(meta.get("location", "?"), title, skipped)].append(artifact)
    out = []
    for (location, title, skipped), artifacts in groups.items():
        payload = next((artifact.payload for artifact in artifacts if artifact.payload), "") or ""
        frames = traceback_lines(payload)
        user, library = user_and_library(frames, location)
        ids = _unique(artifact.compile_id for artifact in artifacts)
        cost, graphs = 0.0, 0
        no_graph = tuple(compile_id for compile_id in ids if compile_id in compiles and not compiles[compile_id].graphs)
        for compile_id in ids:
            compile_facts = compiles.get(compile_id)
            if compile_facts is None or compile_id in claimed:
                continue
            claimed.add(compile_id)
            # A compile that produced no graph was all waste; one that did lost what it traced before restarting.
            cost += (compile_facts.time_ns if compile_facts.graphs == 0 else compile_facts.restart_ns) / 1e9
        for resume in _resume_compiles(compiles, library or user, claimed):  # where the break happened
            claimed.add(resume.compile_id)
            cost += resume.time_ns / 1e9
            graphs += resume.graphs
        link = _GB_LINK.search(payload)
        hint, explanation = _first(_HINT, payload), _first(_EXPLANATION, payload)
        count = len(artifacts)
        if skipped:
            eager = sum(trace.info.calls_eager.get(compile_id, 0) for compile_id in ids) or None
            what = f"Dynamo could not resume after a graph break ({title}) and ran the whole frame eagerly"
            kind = "frame-skipped"
        else:
            eager = None
            what = f"{count} graph break{'s' if count != 1 else ''}: {title}"
            kind = "graph-break"
        out.append(Finding(
            kind=kind, what=what, events=count, compile_ids=ids, cost_s=cost, user_line=user, library_line=library,
            graphs_added=graphs, no_graph=no_graph, eager_calls=eager,
            eager_note=trace.info.calls_note if skipped else None,
            explanation=explanation, hint=hint, torch_link=link.group(1) if link else None,
            graph_break_id=link.group(2).upper() if link else None,
            advice=None if hint else "Move the unsupported call out of the compiled region, or wrap the function "
                                     "that makes it in torch.compiler.disable.",
            explained=BREAKS))
    return out


def _resume_compiles(compiles: dict[str, CompileFacts], line: SourceLine | None,
                     claimed: set[str]) -> list[CompileFacts]:
    """Compiles of the resume functions Dynamo made after a break at ``line``: they exist only because of it."""
    if line is None:
        return []
    found = []
    for compile_facts in compiles.values():
        match = _RESUME.match(compile_facts.frame or "")
        first_version = compile_identity.torch_id(compile_facts.compile_id).endswith("/0")
        same_place = int(match.group(2)) == line.line and (not line.function or match.group(1) == line.function) \
            if match else False
        if same_place and first_version and compile_facts.compile_id not in claimed:
            found.append(compile_facts)
    return found


# -- recompiles and the limit -----------------------------------------------------------------------------------

_GUARD_KINDS = (  # what a failed guard checked, from torch's wording, most specific first
    ("identity", re.compile(r"check_obj_id|ID_MATCH|CodeGuardAccessor|___check_type_id.*__code__")),
    ("size", re.compile(r"size mismatch|stride mismatch|dimensionality|\bsize\(\)|numel")),
    ("dtype", re.compile(r"dtype mismatch|dtype")),
    ("device", re.compile(r"device mismatch|device")),
    ("requires_grad", re.compile(r"requires_grad")),
    ("type", re.compile(r"check_type_id|TYPE_MATCH")),
    ("backend", re.compile(r"BACKEND_MATCH")),
    ("value", re.compile(r"==|EQUALS_MATCH|CONSTANT_MATCH")),
)
_ADVICE = {
    "identity": "Dynamo guards on the identity of `{name}`: every new object compiles a new version. Keep it out of "
                "the compiled function (compile per choice, or select it with a constant), or compile only the part "
                "that does not depend on it.",
    "size": "A size changed; after the first change Dynamo compiles the size as dynamic (automatic dynamic). Mark "
            "it dynamic up front (torch._dynamo.mark_dynamic) to skip the static version.",
    "dtype": "Each dtype of `{name}` compiles its own version: expected if intended, else cast before the call.",
    "device": "Each device of `{name}` compiles its own version.",
    "requires_grad": "`{name}` switched requires_grad: each setting compiles its own version.",
    "type": "`{name}` arrived with another type: each type compiles its own version.",
    "value": "The value of `{name}` is baked into the graph as a constant: each new value compiles a new version. "
             "Pass it as a tensor if it varies.",
    "backend": "Each torch.compile backend compiles its own version of the frame: expected when comparing backends.",
    "other": "A guard on `{name}` failed: see the reason and the guards of the compile before it.",
}


def _recompile_findings(trace: Trace, facts: TraceFacts, compiles: dict[str, CompileFacts],
                        claimed: set[str]) -> list[Finding]:
    groups: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)  # -> [(compile id, name, reason)]
    for recompile in facts.recompiles:
        if recompile.compile_id is None:
            continue
        compile_facts = compiles.get(recompile.compile_id)
        name, kind, reason = _cause(recompile.reasons)
        frame = _base_frame(compile_facts.frame if compile_facts else None)
        groups[(frame, kind)].append((recompile.compile_id, name, reason))
    limits = {compile_facts.compile_id: compile_facts for compile_facts in compiles.values()
              if compile_facts.fail_reason and _LIMIT.search(compile_facts.fail_reason)}
    # The limit belongs to the group whose recompile it refused; else to the largest group of that frame.
    limit_of: dict[tuple[str, str], CompileFacts] = {}
    by_size = sorted(groups.items(), key=lambda item: -len(item[1]))
    for compile_id, limit in limits.items():
        home = next((key for key, members in by_size if any(member[0] == compile_id for member in members)), None) \
            or next((key for key, _ in by_size if key[0] == _base_frame(limit.frame) and key not in limit_of), None)
        if home is not None and home not in limit_of:
            limit_of[home] = limit
    out = []
    limited: set[str] = set()
    for (frame, kind), members in by_size:
        ids = _unique(compile_id for compile_id, _, _ in members)
        cost = sum(compiles[compile_id].time_ns for compile_id in ids
                   if compile_id in compiles and compile_id not in claimed) / 1e9
        claimed.update(ids)
        name, reason = members[0][1], members[0][2]
        guard = _GUARD_LINE.search(reason)
        user = SourceLine(guard.group(2), int(guard.group(3)), guard.group(4), guard.group(1)) if guard else None
        if user is None:
            user = _caller(trace, ids[0])
        resumes = len({_frame_name(compiles[compile_id].frame) for compile_id in ids if compile_id in compiles}) - 1
        also = f" (and {resumes} resume function{'s' if resumes != 1 else ''} after its breaks)" if resumes > 0 else ""
        changed = _CHANGED[kind].format(name=name)
        limit = limit_of.get((frame, kind))
        eager, explanation, hint, explained = None, None, None, SHAPES if kind == "size" else RECOMPILES
        compiled = [compile_id for compile_id in ids if limit is None or compile_id != limit.compile_id]
        what = f"`{frame}`{also} recompiled {len(compiled)} time{'s' if len(compiled) != 1 else ''}: {changed}"
        if limit is not None:
            limited.add(limit.compile_id)
            claimed.add(limit.compile_id)
            ids = _unique((*ids, limit.compile_id))
            eager = trace.info.calls_eager.get(limit.compile_id)
            cap = _LIMIT_VALUE.search(limit.fail_reason or "")
            refused = f"the recompile limit{f' ({cap.group(1)})' if cap else ''} refused a new version"
            what = f"{what}; then {refused}: calls no version accepts run eager" if compiled else \
                f"`{frame}`: {changed}, and {refused}: calls no version accepts run eager"
            explanation, hint = _first(_EXPLANATION, limit.fail_reason or ""), _first(_HINT, limit.fail_reason or "")
            explained = LIMIT
        out.append(Finding(
            kind="recompile-limit" if limit is not None else "recompile", what=what, events=len(members),
            compile_ids=ids, cost_s=cost, user_line=user,
            graphs_added=sum(compiles[compile_id].graphs for compile_id in ids if compile_id in compiles),
            eager_calls=eager, eager_note=trace.info.calls_note if limit is not None else None,
            explanation=explanation, hint=hint, advice=_ADVICE[kind].format(name=name), explained=explained))
    for compile_id, limit in limits.items():  # a limit hit with no recompile reasons recorded for it
        if compile_id not in limited:
            claimed.add(compile_id)
            out.append(Finding(
                kind="recompile-limit", what=f"`{_base_frame(limit.frame)}` hit the recompile limit: calls that fail "
                                             "its guards run eager", events=1, compile_ids=(compile_id,), cost_s=0.0,
                eager_calls=trace.info.calls_eager.get(compile_id), eager_note=trace.info.calls_note,
                explanation=_first(_EXPLANATION, limit.fail_reason or ""), hint=_first(_HINT, limit.fail_reason or ""),
                explained=LIMIT))
    return out


def _cause(reasons: tuple[str, ...]) -> tuple[str, str, str]:
    """The guarded name, what was checked, and one reason saying so: of the versions' failures torch lists (one
    per cached version), the most common kind of failure is what changed (a new value no version accepts)."""
    parsed = [(*_guard_subject(reason), reason) for reason in reasons] or [("?", "other", "")]
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for name, kind, _ in parsed:
        counts[(name, kind)] += 1
    best = max(counts.values())
    return next((name, kind, reason) for name, kind, reason in parsed if counts[(name, kind)] == best)


def _frame_name(frame: str | None) -> str:
    return short(frame or "?")


def _base_frame(frame: str | None) -> str:
    """A resume function Dynamo made after a break in ``f`` stands for ``f``: they recompile for the same cause."""
    name = _frame_name(frame)
    match = _RESUME.match(name)
    return match.group(1) if match else name


def _caller(trace: Trace, compile_id: str) -> SourceLine | None:
    """The user's line that called the frame being compiled (torch's record of the compile's start)."""
    for artifact in trace.artifacts:
        if artifact.kind == "frame" and artifact.compile_id == compile_id:
            frame = artifact.metadata.get("user_frame")
            if frame:
                return SourceLine(frame.get("filename", "?"), int(frame.get("line") or 0), frame.get("name", ""),
                                  frame.get("loc", ""))
    return None


def _guard_subject(reason: str) -> tuple[str, str]:
    """The guarded name (its root: ``act`` of ``act.__code__``) and what was checked."""
    text = re.sub(r"^\S+: ", "", reason.splitlines()[0] if reason else "")  # drop "0/3: "
    kind = next((kind for kind, pattern in _GUARD_KINDS if pattern.search(text)), "other")
    for pattern in _SUBJECTS:
        match = pattern.search(text)
        if match:
            return match.group(1).split(".")[0], kind
    return "?", kind


_SUBJECTS = (  # where torch's guard failure wording names the guarded value, most specific first
    re.compile(r"tensor '([^']+)'"),
    re.compile(r"L\['([^']+)'\]"),
    re.compile(r"___check_\w+\(\s*([A-Za-z_][\w.]*)"),
    re.compile(r" on ([A-Za-z_][\w.]*)"),
    re.compile(r"^([A-Za-z_]\w*)[\w.()\[\]]*\s*(?:==|!=|<=|>=|<|>|is\b)"),
)
_CHANGED = {"identity": "a guard on the identity of `{name}` failed", "size": "the size of `{name}` changed",
            "dtype": "the dtype of `{name}` changed", "device": "the device of `{name}` changed",
            "requires_grad": "`{name}`'s requires_grad changed", "type": "the type of `{name}` changed",
            "value": "the value of `{name}` changed", "backend": "the backend changed",
            "other": "a guard on `{name}` failed"}


# -- thrown-away work, cache misses, the dominant stage --------------------------------------------------------

def _thrown_away(compiles: dict[str, CompileFacts], claimed: set[str]) -> list[Finding]:
    """Compiles that produced no graph, and restarts, that no other finding explains."""
    empty = [facts for facts in compiles.values()
             if facts.compile_id not in claimed and facts.graphs == 0 and "/" in facts.compile_id
             and not facts.fail_reason and facts.time_ns]
    restarted = [facts for facts in compiles.values()
                 if facts.compile_id not in claimed and facts.graphs and facts.restart_ns]
    out = []
    if empty:
        cost = sum(facts.time_ns for facts in empty) / 1e9
        # Named with their places: a generated "__init__" alone says little.
        frames = "; ".join(_distinct(facts.frame or "?" for facts in empty)[:3])
        out.append(Finding(
            kind="thrown-away", what=f"{len(empty)} compile{'s' if len(empty) != 1 else ''} traced a frame and produced "
                                     f"no graph ({frames})", events=len(empty),
            compile_ids=tuple(facts.compile_id for facts in empty), cost_s=cost,
            advice="Dynamo traced these frames and found no tensor work to compile; if they are called often, "
                   "keep them out of the compiled region (torch.compiler.disable).", explained=RESTARTS))
    if restarted:
        cost = sum(facts.restart_ns for facts in restarted) / 1e9
        reason = next((reason for facts in restarted for reason in facts.restarts), "")
        out.append(Finding(
            kind="thrown-away", what=f"Dynamo restarted {len(restarted)} compile{'s' if len(restarted) != 1 else ''} "
                                     f"and threw the traced work away ({short(reason.splitlines()[0]) if reason else '?'})",
            events=len(restarted), compile_ids=tuple(facts.compile_id for facts in restarted), cost_s=cost,
            advice="A restart retraces the frame from its first instruction with what the failed attempt learnt.",
            explained=RESTARTS))
    return out


def _cache_misses(trace: Trace, facts: TraceFacts, compiles: dict[str, CompileFacts]) -> list[Finding]:
    if trace.info.cache_mode != "warm":
        return []
    missed = [compile_facts for compile_facts in compiles.values()
              if any(event.outcome == "miss" for event in compile_facts.cache)]
    if not missed:
        return []
    caches = sorted({event.cache for compile_facts in missed for event in compile_facts.cache if event.outcome == "miss"})
    return [Finding(
        kind="cache-miss", what=f"A warm run missed the {' and '.join(caches)} cache in {len(missed)} "
                                f"compile{'s' if len(missed) != 1 else ''}: they compiled from scratch",
        events=len(missed), compile_ids=tuple(compile_facts.compile_id for compile_facts in missed),
        cost_s=sum(compile_facts.time_ns for compile_facts in missed) / 1e9,
        advice="A miss on a warm run means the cache key changed: another torch or config, changed code, new input "
               "shapes, or another cache dir (TORCHINDUCTOR_CACHE_DIR).", explained=CACHES)]


def _ddp_splits(trace: Trace) -> list[Finding]:
    """DDPOptimizer's graph breaks at bucket boundaries: torch counts them as breaks, but they are meant."""
    splits = [artifact for artifact in trace.artifacts if artifact.name == DDP_SPLIT_CHILD]
    if not splits:
        return []
    return [Finding(
        kind="ddp-split", what=f"DDPOptimizer split the graph at {len(splits)} bucket boundar"
                               f"{'ies' if len(splits) != 1 else 'y'} (torch counts each as a graph break; they are "
                               "intended: each bucket's all-reduce can start while the backward goes on)",
        events=len(splits), compile_ids=_unique(artifact.compile_id for artifact in splits), cost_s=0.0,
        explained=DISTRIBUTED, informational=True)]


_STAGE_ADVICE = {
    "bytecode": "Dynamo traces every inlined call again in each frame it compiles: compile the repeated block (each "
                "layer) instead of the whole model (regional compilation), so it is traced once and reused.",
}


def _dominant_stage(trace: Trace, facts: TraceFacts) -> list[Finding]:
    """A stage whose own time (its calls minus the other stages' calls inside them) is most of the compile time:
    worth knowing, not waste. Stages nest (Dynamo's tracing calls the backend), so inclusive times would mislead."""
    frame_ns = facts.stage_time_ns.get("frame", 0)
    if frame_ns < 1e9:
        return []
    own = _own_stage_time(trace)
    inner = {stage: ns for stage, ns in own.items() if stage not in ("entry", "frame", "user")}
    if not inner:
        return []
    stage, ns = max(inner.items(), key=lambda item: item[1])
    if ns < frame_ns / 2:
        return []
    known = STAGE_BY_ID.get(stage)
    title = known.title if known else stage
    return [Finding(
        kind="slow-stage", what=f"{title} took {format_seconds(ns / 1e9)} of {format_seconds(frame_ns / 1e9)} of "
                                f"compile ({ns / frame_ns:.0%}, not counting the steps of other stages it called)",
        events=facts.stage_calls.get(stage, 0), compile_ids=(), cost_s=0.0, advice=_STAGE_ADVICE.get(stage),
        explained=Explained(known.chapter, known.title) if known else None, informational=True)]


def _own_stage_time(trace: Trace) -> dict[str, int]:
    """Per stage, the time when the innermost open step was one of its own (each span's time minus its children's)."""
    children_ns: dict[int, int] = defaultdict(int)
    for span in trace.spans:
        if span.parent is not None:
            children_ns[span.parent] += span.duration_ns
    own: dict[str, int] = defaultdict(int)
    for span in trace.spans:
        own[span.stage] += max(span.duration_ns - children_ns.get(span.id, 0), 0)
    return dict(own)


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    return match.group(1).strip() if match else None


def _unique(compile_ids: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(sorted({compile_id for compile_id in compile_ids if compile_id is not None},
                        key=compile_identity.sort_key))


def _distinct(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))
