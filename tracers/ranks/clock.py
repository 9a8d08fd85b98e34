"""One time axis for several processes' traces: each rank's span clock shifted onto a shared one."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.events import RunInfo, Trace

from .wording import ranks_text

SAME_HOST = "one host: every rank's span clock is the same monotonic clock, used as it is"
BY_WALL_CLOCK = ("several hosts: each host's span clock is placed by the wall clock read beside it at the start, "
                 "so ranks on different hosts are only as aligned as those hosts' clocks (NTP)")
# The ranks of one launch start within seconds of each other (torchrun's rendezvous waits for them all); placed an
# hour or more apart, a clock is wrong (an unset or hostile wall clock), and a timeline that wide shows nothing.
REASONABLE_NS = 3600 * 10**9


@dataclass(frozen=True)
class Alignment:
    offsets_ns: dict[int, int]  # rank -> added to its span clock to land on the shared axis
    method: str
    # Set when the clocks disagreed beyond reason and the ranks were placed by their starts instead: one line.
    disagreement: str | None = None
    # Whether the ranks' placement was checked already (align, runs_apart, or a merged file's own verdict read back);
    # a placement made elsewhere (torch's log clock) is checked by MergedRun itself.
    checked: bool = False


def start_ns(trace: Trace) -> int:
    """The trace's first moment on its own span clock (its first span, artifact or deep-mode call)."""
    return min([span.start_ns for span in trace.spans] + [artifact.ts_ns for artifact in trace.artifacts]
               + [deep.start_ns for deep in trace.deep_events], default=0)


def end_ns(trace: Trace) -> int:
    """The trace's last moment on its own span clock (its last span's end, artifact or deep-mode call)."""
    return max([span.end_ns or span.start_ns for span in trace.spans] + [artifact.ts_ns for artifact in trace.artifacts]
               + [deep.start_ns + deep.duration_ns for deep in trace.deep_events], default=0)


def align(infos: dict[int, RunInfo], starts: dict[int, int] | None = None) -> Alignment:
    """Offsets from each rank's clock anchor (every rank trace has one: tracers/capture/rank_watch.py).

    perf_counter is CLOCK_MONOTONIC on Linux, one clock for every process of a host, so ranks of one host
    need no shift at all; hosts differ, and the wall clock read beside it is the only shared reference a
    trace has without adding a collective to the user's program (which would change what it runs). Where that
    places the ranks' starts beyond reason apart, they are placed by their starts instead, and the alignment says so."""
    # each rank's first moment on its span clock (start_ns); without them, its clock anchor, read at the start
    starts = starts or {rank: (info.clock or {}).get("perf_ns", 0) for rank, info in infos.items()}
    hosts = {rank: (info.rank or {}).get("host") for rank, info in infos.items()}
    if len(set(hosts.values())) == 1:
        offsets, method, clocks = {rank: 0 for rank in infos}, SAME_HOST, "the ranks' span clocks"
    else:
        unanchored = [rank for rank in sorted(infos) if not infos[rank].clock]
        if unanchored:  # a damaged or hand-made trace: its host cannot be placed by the wall clock
            return by_starts(starts, hosts, f"rank {unanchored[0]}'s trace has no clock anchor to place its host by")
        host_offset: dict[object, int] = {}
        for rank in sorted(infos):  # the lowest rank of each host places that host's clock
            anchor = infos[rank].clock
            host_offset.setdefault(hosts[rank], anchor["wall_ns"] - anchor["perf_ns"])
        offsets = {rank: host_offset[hosts[rank]] for rank in infos}
        method, clocks = BY_WALL_CLOCK, "the hosts' wall clocks"
    placed = [starts[rank] + offsets[rank] for rank in starts]
    if not placed or max(placed) - min(placed) <= REASONABLE_NS:
        return Alignment(offsets, method, checked=True)
    return by_starts(starts, hosts, f"{clocks} put the ranks' starts {apart(max(placed) - min(placed))} apart")


def by_starts(starts: dict[int, int], hosts: dict[int, object], why: str) -> Alignment:
    """Clocks beyond reason: each host's lowest rank's start at 0, its other ranks beside it where they agree with
    it, a rank that does not at its own start; in order within a rank, not in time across hosts."""
    offsets: dict[int, int] = {}
    base: dict[object, int] = {}
    for rank in sorted(starts):
        host_start = base.setdefault(hosts[rank], starts[rank])
        offsets[rank] = -(host_start if abs(starts[rank] - host_start) <= REASONABLE_NS else starts[rank])
    return beyond_reason(offsets, why)


def beyond_reason(offsets: dict[int, int], why: str) -> Alignment:
    """Ranks placed by their starts, and the lines that say why: the clocks line and one warning."""
    method = f"the ranks placed by their starts, not by the clocks ({why}): in order, not in time"
    return Alignment(offsets, method, f"the ranks' clocks disagree beyond reason ({why}); every rank is kept, "
                                      "placed by its start", checked=True)


def apart(ns: int) -> str:
    """A large time in words: ``146 years``, ``3.5 days``, ``2 h``."""
    for unit, size in (("years", 365.25 * 86_400e9), ("days", 86_400e9), ("h", 3_600e9), ("min", 60e9), ("s", 1e9)):
        if ns >= size:
            value = ns / size
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.2g} {unit}"
    return f"{ns} ns"


def runs_apart(alignment: Alignment, windows: dict[int, tuple[int, int]]) -> Alignment | None:
    """The ranks' runs (first to last moment, on the alignment's axis) checked to overlap: where they fall into groups
    more than REASONABLE_NS apart, an alignment that places each group by its start and says so; else None.

    Whoever placed the ranks (the tracer's clock anchors, torch's log clock, a merged file), ranks whose runs lie
    hours or months apart were no ranks of one launch running together (logs of several runs in one folder, or
    hosts' clocks far off): no rank can have waited for another, and a timeline that wide shows nothing."""
    placed = {rank: (start + alignment.offsets_ns.get(rank, 0), end + alignment.offsets_ns.get(rank, 0))
              for rank, (start, end) in windows.items()}
    groups: list[tuple[list[int], int, int]] = []  # ranks, first and last moment of their runs together
    for rank, (start, end) in sorted(placed.items(), key=lambda item: item[1]):
        if groups and start - groups[-1][2] <= REASONABLE_NS:
            groups[-1] = (groups[-1][0] + [rank], groups[-1][1], max(groups[-1][2], end))
        else:
            groups.append(([rank], start, end))
    if len(groups) < 2:
        return None
    offsets = {rank: alignment.offsets_ns.get(rank, 0) - group_start for ranks, group_start, _ in groups
               for rank in ranks}
    later = ", ".join(f"then {ranks_text(ranks)}, {apart(start - groups[index][2])} later"
                      for index, (ranks, start, _) in enumerate(groups[1:]))
    why = f"the ranks' runs do not overlap in time: {ranks_text(groups[0][0])}, {later}"
    return Alignment(offsets, f"each group of ranks placed by its start ({why}): in order, not in time",
                     f"{why}; they are several runs' ranks, or their clocks disagree beyond reason: every rank is "
                     "kept, each group placed by its start, and no waits between them are compared", checked=True)
