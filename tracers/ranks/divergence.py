"""Where ranks part ways: each compile's signature per rank (inputs, guards, graphs, collectives, caches,
recompile reasons), compared in compile order, the first difference first."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Artifact, Trace

from .collectives import Collective, collectives_in

# Values that differ between processes without meaning anything: object ids and addresses in guards,
# a rank's own GPU index.
_VOLATILE = (
    (re.compile(r"\b0x[0-9a-f]+\b"), "0x…"),
    (re.compile(r"\b\d{7,}\b"), "<id>"),
    (re.compile(r"\bcuda:\d+\b"), "cuda"),
    (re.compile(r"\bdevice=\d+\b"), "device=…"),
)
_GUARD_COMMENT = re.compile(r"\s+#.*$")  # where torch added the guard: the same code, other line numbers
_TIMING = re.compile(r"\s*Guard latency\b")
_PLACEHOLDER = re.compile(r'(\w+): "([^"]+)"')


def _steady(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


@dataclass(frozen=True)
class CompileSignature:
    """What one rank did for one compile id: what must match across ranks for them to stay in step."""

    compile_id: str
    line: str | None  # the user's source line that triggered the compile
    recompile_reasons: tuple[str, ...]
    inputs: tuple[str, ...]  # the Dynamo graph's inputs: name and tensor metadata (dtype, shape, stride, device)
    guards: frozenset[str]
    graphs: int
    graph_breaks: tuple[str, ...]
    collectives: tuple[Collective, ...]
    cache: tuple[str, ...]


# Each aspect: its name, how to read it off a signature, what a difference means.
ASPECTS: tuple[tuple[str, Callable[[CompileSignature], object], str], ...] = (
    ("recompile reasons", lambda s: s.recompile_reasons,
     "the ranks recompiled for different reasons: their inputs or state differ here"),
    ("input tensor metadata", lambda s: s.inputs,
     "the graphs were traced for inputs of other shapes, strides, dtypes or devices"),
    ("guards", lambda s: s.guards,
     "different guards: the same call can reuse the compiled code on one rank and recompile on another"),
    ("graph count", lambda s: s.graphs,
     "a different number of graphs: the ranks run different code between their collectives"),
    ("graph breaks", lambda s: s.graph_breaks,
     "the ranks broke the graph at different places"),
    ("collectives", lambda s: s.collectives,
     "different collectives inside the compiled graphs (kind, order or size): each rank waits for a "
     "partner operation the other never issues — under NCCL that is a hang until the watchdog's timeout"),
    ("cache outcomes", lambda s: s.cache,
     "different cache outcomes: one rank compiled from scratch while another loaded the result, so it "
     "reaches the next collective later and the others wait for it"),
)
PRESENCE = "compiled on some ranks only"
PRESENCE_WHY = ("only some ranks compiled this: the others reused earlier code (their guards held) and went "
                "on to the next collective, where they wait while these ranks compile; if the new graph's "
                "collectives differ, they never meet")


@dataclass(frozen=True)
class Difference:
    aspect: str
    compile_id: str
    groups: tuple[tuple[tuple[int, ...], str], ...]  # ranks that agree, and the value they agree on, in words
    line: str | None
    why: str

    def ranks_text(self) -> str:
        return "; ".join(f"{_ranks(ranks)}: {value}" for ranks, value in self.groups)


@dataclass(frozen=True)
class Divergence:
    ranks: tuple[int, ...]  # the ranks compared (those with a trace)
    differences: tuple[Difference, ...]  # in compile order, then aspect order

    @property
    def first(self) -> Difference | None:
        return self.differences[0] if self.differences else None


def _ranks(ranks: tuple[int, ...]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def user_line(artifacts: list[Artifact], compile_id: str) -> str | None:
    """``file:line  code`` of the user's call that started a compile (torch's dynamo_start record)."""
    for artifact in artifacts:
        frame = artifact.metadata.get("user_frame") if artifact.kind == "frame" else None
        if frame and artifact.compile_id == compile_id:
            code = f"  {frame['loc']}" if frame.get("loc") else ""
            return f"{str(frame.get('filename', '?')).rsplit('/', 1)[-1]}:{frame.get('line', '?')}{code}"
    return None


def _inputs(artifacts: list[Artifact]) -> tuple[str, ...]:
    graph = next((a.payload for a in artifacts if a.name == "dynamo_output_graph" and a.payload), "")
    signature = next((line for line in graph.splitlines() if "def forward(" in line), "")
    return tuple(f"{name}: {_steady(meta)}" for name, meta in _PLACEHOLDER.findall(signature))


def _guards(artifacts: list[Artifact]) -> frozenset[str]:
    text = next((a.payload for a in artifacts if a.kind == "guards" and a.payload), "")
    # torch appends how long the guards took to check: a timing, not a guard.
    return frozenset(_steady(_GUARD_COMMENT.sub("", line)).strip() for line in text.splitlines()
                     if line.strip() and not _TIMING.match(line))


def signatures(trace: Trace, facts: TraceFacts | None = None) -> dict[str, CompileSignature]:
    facts = facts or analyze(trace)
    by_compile: dict[str, list[Artifact]] = {}
    for artifact in trace.artifacts:
        if artifact.compile_id:
            by_compile.setdefault(artifact.compile_id, []).append(artifact)
    found = {}
    for compile in facts.compiles:
        artifacts = by_compile.get(compile.compile_id, [])
        cid = compile.compile_id
        found[cid] = CompileSignature(
            compile_id=cid,
            line=user_line(artifacts, cid) or compile.user_frame or compile.frame,
            recompile_reasons=tuple(_steady(reason) for r in facts.recompiles if r.compile_id == cid
                                    for reason in r.reasons),
            inputs=_inputs(artifacts),
            guards=_guards(artifacts),
            graphs=compile.graphs,
            graph_breaks=tuple(f"{b.location}: {b.reason}" for b in facts.graph_breaks if b.compile_id == cid),
            collectives=collectives_in(artifacts),
            cache=tuple(f"{event.cache} {event.outcome}" for event in compile.cache),
        )
    return found


def _describe(value: object, others: list[object]) -> str:
    """A value in words; for sets, what this rank has that another lacks (the whole set is too long)."""
    if isinstance(value, frozenset):
        extra = sorted(value - set().union(*[other for other in others if isinstance(other, frozenset)]))
        missing = sorted(set().union(*[other - value for other in others if isinstance(other, frozenset)]))
        parts = [f"+ {line}" for line in extra[:2]] + [f"- {line}" for line in missing[:2]]
        return f"{len(value)} guards" + (" (" + "; ".join(parts) + ")" if parts else "")
    if isinstance(value, tuple):
        if not value:
            return "none"
        return ", ".join(str(item) for item in value)
    return str(value)


def compare(traces: dict[int, Trace], facts: dict[int, TraceFacts] | None = None) -> Divergence:
    """Compare every rank's compiles; ranks without a trace are left out (the merge names them).
    ``facts``: each rank's analysis, when the caller has it already."""
    facts = facts or {}
    per_rank = {rank: signatures(trace, facts.get(rank)) for rank, trace in sorted(traces.items())}
    ranks = tuple(per_rank)
    all_ids = sorted({cid for sigs in per_rank.values() for cid in sigs}, key=sort_key)
    differences: list[Difference] = []
    for cid in all_ids:
        having = tuple(rank for rank in ranks if cid in per_rank[rank])
        line = next((per_rank[rank][cid].line for rank in having if per_rank[rank][cid].line), None)
        if len(having) < len(ranks):
            missing = tuple(rank for rank in ranks if rank not in having)
            reasons = _group({rank: per_rank[rank][cid].recompile_reasons for rank in having})
            groups = tuple((group, f"compiled {cid}" + (f", recompiling because {'; '.join(value)}" if value else ""))
                           for group, value in reasons) + ((missing, "did not compile it"),)
            differences.append(Difference(PRESENCE, cid, groups, line, PRESENCE_WHY))
            continue
        for aspect, read, why in ASPECTS:
            values = {rank: read(per_rank[rank][cid]) for rank in ranks}
            grouped = _group(values)
            if len(grouped) > 1:
                described = tuple((group, _describe(value, [v for g, v in grouped if g != group]))
                                  for group, value in grouped)
                differences.append(Difference(aspect, cid, described, line, why))
    return Divergence(ranks, tuple(differences))


def _group(values: dict[int, object]) -> list[tuple[tuple[int, ...], object]]:
    """Ranks with equal values together, the largest group first (the majority is usually right)."""
    groups: list[tuple[list[int], object]] = []
    for rank, value in values.items():
        for members, known in groups:
            if known == value:
                members.append(rank)
                break
        else:
            groups.append(([rank], value))
    groups.sort(key=lambda group: (-len(group[0]), group[0]))
    return [(tuple(members), value) for members, value in groups]
