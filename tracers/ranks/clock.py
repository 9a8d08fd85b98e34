"""One time axis for several processes' traces: each rank's span clock shifted onto a shared one."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.events import RunInfo, Trace

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


def start_ns(trace: Trace) -> int:
    """The trace's first moment on its own span clock (its first span, artifact or deep-mode call)."""
    return min([span.start_ns for span in trace.spans] + [artifact.ts_ns for artifact in trace.artifacts]
               + [deep.start_ns for deep in trace.deep_events], default=0)


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
        return Alignment(offsets, method)
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
                                      "placed by its start")


def apart(ns: int) -> str:
    """A large time in words: ``146 years``, ``3.5 days``, ``2 h``."""
    for unit, size in (("years", 365.25 * 86_400e9), ("days", 86_400e9), ("h", 3_600e9), ("min", 60e9), ("s", 1e9)):
        if ns >= size:
            value = ns / size
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.2g} {unit}"
    return f"{ns} ns"
