"""How long other ranks sat idle while some ranks compiled alone: what they wait for at their next collective."""

from __future__ import annotations

from collections.abc import Iterable

from tracers.tracefile.events import Span, Trace

from .merge import MergedRun

Interval = tuple[int, int]


def idle_while_compiling(run: MergedRun, compiles: dict[int, tuple[str, ...]]) -> dict[int, float]:
    """Each rank that compiled none of ``compiles`` (rank -> its compile ids) -> seconds of those compiles during
    which it compiled nothing itself; empty where the ranks' clocks could not be put on one axis."""
    traces = run.rank_traces
    if run.kind != "ranks" or run.alignment.disagreement or len(traces) < 2 or not compiles:
        return {}
    offsets = run.alignment.offsets_ns
    alone = _union(interval for rank, ids in compiles.items() if rank in traces
                   for interval in _compile_intervals(traces[rank], set(ids), offsets.get(rank, 0)))
    idle = {}
    for rank, trace in traces.items():
        if rank in compiles:
            continue
        own = _union(_compile_intervals(trace, None, offsets.get(rank, 0)))
        idle[rank] = _length(alone) - _overlap(alone, own)
    return {rank: seconds / 1e9 for rank, seconds in idle.items() if seconds > 0}


def _compile_intervals(trace: Trace, ids: set[str] | None, offset: int) -> list[Interval]:
    """The outermost spans of the compiles ``ids`` (every compile where None), on the shared axis: the frame's
    compile and the backward AOTAutograd compiles lazily, under the same id."""
    by_id = {span.id: span for span in trace.spans}
    found = []
    for span in trace.spans:
        if span.compile_id and (ids is None or span.compile_id in ids) and not _inside_same(span, by_id):
            found.append((span.start_ns + offset, (span.end_ns or span.start_ns) + offset))
    return found


def _inside_same(span: Span, by_id: dict[int, Span]) -> bool:
    parent = by_id.get(span.parent) if span.parent is not None else None
    return parent is not None and parent.compile_id == span.compile_id


def _union(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(intervals: list[Interval]) -> int:
    return sum(end - start for start, end in intervals)


def _overlap(first: list[Interval], second: list[Interval]) -> int:
    """Time covered by both unions (each sorted, disjoint)."""
    total, i, j = 0, 0, 0
    while i < len(first) and j < len(second):
        start, end = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        total += max(0, end - start)
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return total
