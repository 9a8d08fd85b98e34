"""Ranks compared on what torch logs for it: collective schedules, cache hits and misses, graph execution order,
Inductor's runtime estimates and output metadata, and collectives left without a wait in the output code."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace

from .collectives import Step, parting
from .difference import Difference, Estimate, group_ranks
from .wording import by_ranks, parting_words, ranks_text

SCHEDULE = "inductor_collective_schedule"  # the collectives Inductor scheduled in a graph, in order
ESTIMATES = "inductor_runtime_and_tensor_meta"  # per op: estimated runtime and output shapes, strides, dtypes
EXECUTION = "graph_execution"  # compile ids in the order their graphs ran (record_and_log_graph_execution_order)
_WAIT = "wait_tensor"
# A functional collective called in Inductor's output code: ``torch.ops._c10d_functional.all_reduce_.default(``.
_CALL = re.compile(r"torch\.ops\._?c10d_functional\.(\w+)\.default\(")
_COMMENT = re.compile(r"#[^\n]*")
_SHOWN = 8  # ops listed per rank before "… N more"

CACHE_WHY = ("one rank compiled from scratch while another loaded the result, so it reaches the next collective "
             "later and the others wait for it")
ORDER_WHY = "the ranks ran their compiled graphs in another order: their collectives meet in another order"
META_WHY = "Inductor compiled ops with other output shapes, strides or dtypes: the ranks' tensors differ"
KERNELS_WHY = "Inductor made other ops for the same graph (other fusions or kernels): the ranks run other code"
ESTIMATE_WHY = "Inductor expects the ranks' graphs to take different times: the fast ranks wait for the slow"


@dataclass(frozen=True)
class MissingWaits:
    rank: int
    compile_id: str
    collectives: int  # collectives the graph's output code issues
    waits: int  # wait_tensor calls in it


def short_op(op: str) -> str:
    """``torch.ops._c10d_functional.all_reduce_.default`` -> ``all_reduce_``."""
    parts = [part for part in str(op).split(".") if part not in ("torch", "ops", "default")]
    return parts[-1] if parts else str(op)


def _payloads(trace: Trace, name: str) -> list[tuple[str, Any]]:
    """(compile id, parsed JSON payload) of each record of that name, in log order; unparsable ones skipped."""
    found = []
    for artifact in trace.artifacts:
        if artifact.name == name and artifact.payload:
            try:
                found.append((artifact.compile_id or "", json.loads(artifact.payload)))
            except ValueError:
                continue
    return found


def _first_index(sequences: Sequence[Sequence[Any]]) -> int:
    """Where the sequences first differ (the shortest's length when one is a prefix of another)."""
    for index in range(min(len(seq) for seq in sequences)):
        if len({repr(seq[index]) for seq in sequences}) > 1:
            return index
    return min(len(seq) for seq in sequences)


def _listed(items: Sequence[str]) -> str:
    more = f", … {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more if items else "none"


def _sequence_difference(aspect: str, per_rank: dict[int, list[tuple[str, str]]], what: str, unit: str,
                         why: str, line_of: Callable[[str], str | None]) -> Difference | None:
    """Ranks whose (compile id, item) sequences differ: grouped, and the first place they part, in words."""
    groups = group_ranks({rank: [item for _, item in seq] for rank, seq in per_rank.items()})
    if len(groups) < 2:
        return None
    index = _first_index([value for _, value in groups])
    at = {ranks: (per_rank[ranks[0]][index] if index < len(per_rank[ranks[0]]) else None) for ranks, _ in groups}
    compile_id = next((item[0] for item in at.values() if item is not None), "")
    said = (f"{what}: {unit} {index + 1} is "
            + by_ranks([(ranks, item[1] if item else "none (the sequence ended)") for ranks, item in at.items()])
            + (f" (compile {compile_id})" if compile_id else ""))
    detail = tuple(f"{ranks_text(ranks)}: {_listed(value)} ({len(value)})" for ranks, value in groups)
    return Difference(aspect, compile_id, tuple((ranks, _listed(value)) for ranks, value in groups),
                      line_of(compile_id), why, said, detail)


def schedules(traces: dict[int, Trace], line_of: Callable[[str], str | None]) -> Difference | None:
    """The collectives Inductor scheduled, all graphs in log order, per rank (waits left out: not collectives)."""
    per_rank = {rank: [(cid, short_op(op)) for cid, ops in _payloads(trace, SCHEDULE) if isinstance(ops, list)
                       for op in ops if op and short_op(op) != _WAIT] for rank, trace in traces.items()}
    if not any(per_rank.values()):
        return None
    found = _sequence_difference("collective schedule", per_rank, "collective schedules differ", "collective", "",
                                 line_of)
    steps = {rank: [Step(op, "", cid, _frames(traces[rank]).get(cid, "")) for cid, op in sequence]
             for rank, sequence in per_rank.items()}
    parted = parting(steps)
    if found is None or parted is None:
        return found
    # how strongly to say it: a hang only where the ranks cannot meet (collectives.parting)
    return replace(found, why=parting_words(parted, steps, "none (the sequence ended)")[1])


def _frames(trace: Trace) -> dict[str, str]:
    """Each compile id's frame name: ranks may compile other frames under one id."""
    frames: dict[str, str] = {}
    for span in trace.spans:
        if span.compile_id and span.frame:
            frames.setdefault(span.compile_id, span.frame.split(" (", 1)[0])
    return frames


def cache_patterns(facts: dict[int, TraceFacts], line_of: Callable[[str], str | None]) -> Difference | None:
    """Each rank's cache hits and misses in compile order; ranks grouped by the pattern."""
    per_rank = {rank: [(c.compile_id, f"{event.cache} {event.outcome} at {c.compile_id}") for c in fact.compiles
                       for event in c.cache] for rank, fact in facts.items()}
    if not any(per_rank.values()):
        return None
    found = _sequence_difference("cache hit/miss pattern", per_rank, "cache hits and misses differ", "lookup",
                                 CACHE_WHY, line_of)
    if found is None:
        return None
    counts = group_ranks({rank: _hit_miss(seq) for rank, seq in per_rank.items()})
    return Difference(found.aspect, found.compile_id,
                      tuple((ranks, value) for ranks, value in counts), found.line, found.why, found.said,
                      found.detail)


def _hit_miss(sequence: list[tuple[str, str]]) -> str:
    hits = sum(1 for _, item in sequence if " hit at " in item)
    misses = sum(1 for _, item in sequence if " miss at " in item)
    other = len(sequence) - hits - misses
    return f"{hits} hits, {misses} misses" + (f", {other} other" if other else "")


def execution_order(traces: dict[int, Trace], line_of: Callable[[str], str | None]) -> Difference | None:
    """The order each rank ran its compiled graphs in (torch logs it only when asked to record it)."""
    per_rank = {}
    for rank, trace in traces.items():
        for _, payload in _payloads(trace, EXECUTION):
            order = payload.get("graph_execution_order") if isinstance(payload, dict) else None
            if isinstance(order, list):
                ids = [str(item.get("compile_id")) for item in order if isinstance(item, dict)]
                per_rank[rank] = [(cid, cid) for cid in ids]
    if len(per_rank) < 2:
        return None
    return _sequence_difference("graph execution order", per_rank, "graphs ran in another order", "call",
                                ORDER_WHY, line_of)


def _ops(payload: Any) -> list[dict[str, Any]]:
    ops = payload.get("ops") if isinstance(payload, dict) else None
    return [op for op in ops if isinstance(op, dict)] if isinstance(ops, list) else []


def tensor_meta(traces: dict[int, Trace], line_of: Callable[[str], str | None]) -> Difference | None:
    """Inductor's ops and their output metadata compared graph by graph (a rank without a graph's record is left out
    of that graph): the first graph whose ops differ, said where they first part, with only the values that differ."""
    per_rank: dict[int, dict[str, list[tuple[str, tuple[tuple[str, str], ...]]]]] = {}
    for rank, trace in traces.items():
        for cid, payload in _payloads(trace, ESTIMATES):
            per_rank.setdefault(rank, {}).setdefault(cid, []).extend(_op(op) for op in _ops(payload))
    partings = [found for cid in sorted({cid for ops in per_rank.values() for cid in ops}, key=sort_key)
                if (found := _graph_parting(cid, {rank: ops[cid] for rank, ops in per_rank.items() if cid in ops}))]
    if not partings:
        return None
    cid, said, why, groups = partings[0]
    return Difference("Inductor tensor metadata", cid, groups, line_of(cid), why, said,
                      tuple(words for _, words, _, _ in partings))


def _op(op: dict[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """An op's name and its tensor outputs' metadata (outputs without a dtype are no tensors: nothing to compare)."""
    outputs = tuple((f"{out.get('dtype')}{out.get('shape')}", f"stride {out.get('stride')}")
                    for out in op.get("outputs") or [] if isinstance(out, dict) and out.get("dtype"))
    return str(op.get("name")), outputs


def _graph_parting(cid: str, having: dict[int, list]) -> tuple[str, str, str, tuple] | None:
    """Where one graph's ops first differ between the ranks that logged it: the words, why, and the ranks' groups."""
    if len(having) < 2 or len(group_ranks(having)) < 2:
        return None
    index = _first_index(list(having.values()))
    at = {rank: ops[index] if index < len(ops) else None for rank, ops in having.items()}
    names = {item[0] for item in at.values() if item is not None}
    if None not in at.values() and len(names) == 1:  # one op, other outputs: its metadata differs
        # dtypes and shapes, with strides only where those agree: only what differs is said
        strides = len({tuple(meta for meta, _ in item[1]) for item in at.values()}) == 1  # type: ignore[union-attr]
        grouped = group_ranks({rank: "; ".join(f"{meta} {stride}" if strides else meta for meta, stride in item[1])
                               or "no tensor" for rank, item in at.items()})  # type: ignore[union-attr]
        said = f"op {index + 1} of graph {cid} (`{short_op(names.pop())}`) outputs " + by_ranks(grouped)
        return cid, said, META_WHY, tuple(grouped)
    grouped = group_ranks({rank: f"`{short_op(item[0])}`" if item else "none (its ops end)" for rank, item in at.items()})
    return cid, f"op {index + 1} of graph {cid} is " + by_ranks(grouped), KERNELS_WHY, tuple(grouped)


def estimates(traces: dict[int, Trace]) -> tuple[tuple[Estimate, ...], str | None]:
    """Each graph's estimated runtime on every rank, when all ranks have the same graphs; else why not."""
    per_rank: dict[int, dict[str, float]] = {}
    for rank, trace in traces.items():
        for cid, payload in _payloads(trace, ESTIMATES):
            total = sum(float(op.get("estimated_runtime_ns") or 0) for op in _ops(payload))
            per_rank.setdefault(rank, {})[cid] = per_rank.get(rank, {}).get(cid, 0.0) + total
    if not per_rank:
        return (), None
    graphs = {rank: frozenset(by_id) for rank, by_id in per_rank.items()}
    if len(per_rank) < len(traces) or len(set(graphs.values())) > 1:
        groups = group_ranks({rank: graphs.get(rank, frozenset()) for rank in traces})
        return (), ("Inductor's runtime estimates are not compared: the ranks have different graphs ("
                    + "; ".join(f"{ranks_text(ranks)}: {len(ids)} graph{'s' if len(ids) != 1 else ''} with estimates"
                                for ranks, ids in groups) + ")")
    ids = sorted(next(iter(graphs.values())), key=sort_key)
    return tuple(Estimate(cid, tuple((rank, per_rank[rank][cid]) for rank in sorted(per_rank))) for cid in ids), None


def estimate_difference(found: tuple[Estimate, ...], line_of: Callable[[str], str | None]) -> Difference | None:
    """The graph whose estimate differs most between ranks (shown to a microsecond: smaller is noise)."""
    differing = [estimate for estimate in found if len({round(ns / 1000) for _, ns in estimate.by_rank}) > 1]
    if not differing:
        return None
    worst = max(differing, key=lambda estimate: estimate.spread_ns)
    groups = group_ranks({rank: _ms(ns) for rank, ns in worst.by_rank})
    said = (f"Inductor's runtime estimate of graph {worst.compile_id} is " + by_ranks(groups)
            + f" ({_ms(worst.spread_ns)} apart)")
    detail = tuple(f"{e.compile_id}: " + by_ranks(group_ranks({rank: _ms(ns) for rank, ns in e.by_rank}))
                   for e in differing)
    return Difference("runtime estimates", worst.compile_id, tuple(groups), line_of(worst.compile_id),
                      ESTIMATE_WHY, said, detail)


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"


def missing_waits(traces: dict[int, Trace]) -> tuple[MissingWaits, ...]:
    """Graphs whose output code issues more collectives than it waits for (comments left out)."""
    found = []
    for rank, trace in traces.items():
        for artifact in trace.artifacts:
            if artifact.name != "inductor_output_code" or not artifact.payload:
                continue
            calls = [match[1] for match in _CALL.finditer(_COMMENT.sub("", artifact.payload))]
            waits = sum(1 for call in calls if call == _WAIT)
            if len(calls) - waits > waits:
                found.append(MissingWaits(rank, artifact.compile_id or "?", len(calls) - waits, waits))
    return tuple(sorted(found, key=lambda item: (sort_key(item.compile_id), item.rank)))


def waits_note(found: tuple[MissingWaits, ...]) -> str | None:
    if not found:
        return None
    parts = [f"{item.compile_id} on rank {item.rank}: {item.collectives} collective"
             f"{'s' if item.collectives != 1 else ''}, {item.waits} wait{'s' if item.waits != 1 else ''} "
             f"({item.collectives - item.waits} missing)" for item in found]
    return "Output code that issues collectives it never waits for: " + "; ".join(parts)
