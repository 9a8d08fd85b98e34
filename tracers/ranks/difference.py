"""One difference between ranks, and all of them: plain data the summary, the page and the merged JSON share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .wording import ranks_text


@dataclass(frozen=True)
class Difference:
    aspect: str
    compile_id: str  # where it first shows ("" when no compile id applies)
    groups: tuple[tuple[tuple[int, ...], str], ...]  # ranks that agree, and the value they agree on, in words
    line: str | None
    why: str
    said: str = ""  # the difference in one line, as the user would say it (which argument, which shapes)
    detail: tuple[str, ...] = ()  # the lines that differ, nothing else (the page folds them)

    def ranks_text(self) -> str:
        return "; ".join(f"{ranks_text(ranks)}: {value}" for ranks, value in self.groups)

    @property
    def words(self) -> str:
        return self.said or self.ranks_text()


@dataclass(frozen=True)
class Estimate:
    """Inductor's runtime estimate of one graph on each rank that compiled it (ns, summed over its ops)."""

    compile_id: str
    by_rank: tuple[tuple[int, float], ...]

    @property
    def spread_ns(self) -> float:
        values = [ns for _, ns in self.by_rank]
        return max(values) - min(values)


@dataclass(frozen=True)
class Divergence:
    ranks: tuple[int, ...]  # the ranks compared (those with a trace)
    differences: tuple[Difference, ...]  # in compile order, then aspect order
    estimates: tuple[Estimate, ...] = ()  # per graph, when every rank has the same graphs with estimates
    notes: tuple[str, ...] = ()  # what torch's records say beside differences (missing waits, estimates withheld)
    compared: tuple[str, ...] = ()  # what was compared, in words (records some logs lack are not)

    @property
    def first(self) -> Difference | None:
        return self.differences[0] if self.differences else None


def group_ranks(values: dict[int, Any]) -> list[tuple[tuple[int, ...], Any]]:
    """Ranks with equal values together, the largest group first (the majority is usually right)."""
    groups: list[tuple[list[int], Any]] = []
    for rank, value in sorted(values.items()):
        for members, known in groups:
            if known == value:
                members.append(rank)
                break
        else:
            groups.append(([rank], value))
    groups.sort(key=lambda group: (-len(group[0]), group[0]))
    return [(tuple(members), value) for members, value in groups]
