"""How the processes that did not finish normally ended, said once for all the ranks that ended alike: a world of
131,072 ranks with two logs is a line or two, never one line per rank without a trace."""

from __future__ import annotations

from dataclasses import dataclass

from .merge import MergedRun
from .wording import ranks_text


@dataclass(frozen=True)
class Ending:
    who: str  # ``rank 3``, ``ranks 1–131070``, or a process's own name
    ending: str  # RankTrace.ending
    severe: bool  # no trace at all, or a crash (said in red)


def endings(run: MergedRun) -> list[Ending]:
    """Each ending once, with the ranks that had it (in rank order, by the first of them); processes by name."""
    grouped: dict[tuple[str, bool], list[int]] = {}
    named: list[tuple[int, Ending]] = []
    for slot in run.ranks:
        ending = slot.ending
        if ending is None:
            continue
        severe = slot.trace is None or slot.trace.info.status == "error"
        if slot.process is not None:
            named.append((slot.rank, Ending(slot.name, ending, severe)))
        else:
            grouped.setdefault((ending, severe), []).append(slot.rank)
    found = named + [(ranks[0], Ending(ranks_text(ranks), ending, severe))
                     for (ending, severe), ranks in grouped.items()]
    return [ending for _, ending in sorted(found, key=lambda item: item[0])]
