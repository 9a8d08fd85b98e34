"""One time axis for several processes' traces: each rank's span clock shifted onto a shared one."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.events import RunInfo

SAME_HOST = "one host: every rank's span clock is the same monotonic clock, used as it is"
BY_WALL_CLOCK = ("several hosts: each host's span clock is placed by the wall clock read beside it at the "
                 "start, so ranks on different hosts are only as aligned as those hosts' clocks (NTP)")


@dataclass(frozen=True)
class Alignment:
    offsets_ns: dict[int, int]  # rank -> added to its span clock to land on the shared axis
    method: str


def align(infos: dict[int, RunInfo]) -> Alignment:
    """Offsets from each rank's clock anchor (every rank trace has one: tracers/capture/rank_watch.py).

    perf_counter is CLOCK_MONOTONIC on Linux, one clock for every process of a host, so ranks of one host
    need no shift at all; hosts differ, and the wall clock read beside it is the only shared reference a
    trace has without adding a collective to the user's program (which would change what it runs)."""
    anchors = {rank: info.clock for rank, info in infos.items()}
    hosts = {(info.rank or {}).get("host") for info in infos.values()}
    if len(hosts) == 1:
        return Alignment({rank: 0 for rank in infos}, SAME_HOST)
    host_offset: dict[object, int] = {}
    for rank in sorted(infos):  # the lowest rank of each host places that host's clock
        host = (infos[rank].rank or {}).get("host")
        anchor = anchors[rank]
        host_offset.setdefault(host, anchor["wall_ns"] - anchor["perf_ns"])
    return Alignment({rank: host_offset[(info.rank or {}).get("host")] for rank, info in infos.items()},
                     BY_WALL_CLOCK)
