"""Two traces' findings matched up: which appeared, which went away, which changed, said in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .findings import Finding

# How a kind of finding is named in a sentence.
KIND_WORDS = {
    "graph-break": "a graph break",
    "frame-skipped": "a skipped frame",
    "recompile": "a recompile",
    "recompile-limit": "the recompile limit",
    "thrown-away": "thrown-away compile work",
    "cache-miss": "a cache miss",
    "slow-stage": "the dominant stage",
    "ddp-split": "DDPOptimizer's graph splits",
}


@dataclass(frozen=True)
class FindingChange:
    """One finding present on one side only, or on both with another count or cause."""

    change: str  # "appeared" (only in B), "went away" (only in A), "changed" (both, differently)
    kind: str
    where: str  # the user's line, the library line, or the stage; "" when the finding has no place
    a_what: str  # the finding's own line under A ("" when only in B)
    b_what: str
    a_events: int
    b_events: int

    def sentence(self, a: str = "A", b: str = "B") -> str:
        """The change in words, e.g. ``a graph break appeared under 2.14.1 at model.py:12: …``."""
        noun = KIND_WORDS.get(self.kind, self.kind)
        at = f" at {self.where}" if self.where else ""
        if self.kind == "slow-stage" and self.change != "changed":  # one stage stands out, or no longer does
            if self.change == "appeared":
                return f"{self.where or 'one stage'} became the dominant stage under {b}: {self.b_what}"
            return f"{self.where or 'one stage'} is no longer the dominant stage under {b} (under {a}: {self.a_what})"
        if self.change == "appeared":
            return f"{noun}{at} appeared under {b}: {self.b_what}"
        if self.change == "went away":
            return f"{noun}{at} went away under {b} (under {a}: {self.a_what})"
        counts = (f"{self.a_events} event{'s' if self.a_events != 1 else ''} under {a}, {self.b_events} under {b}"
                  if self.a_events != self.b_events else "")
        words = f"under {a}: {self.a_what}; under {b}: {self.b_what}" if self.a_what != self.b_what else ""
        return f"{noun}{at} changed: " + "; ".join(part for part in (counts, words) if part)


def _where(finding: Finding) -> str:
    line = finding.user_line or finding.library_line
    if line is not None:
        return line.short
    return finding.explained.title if finding.kind == "slow-stage" and finding.explained else ""


def _key(finding: Finding) -> tuple[str, str]:
    return finding.kind, _where(finding)


def _same(a: Finding, b: Finding) -> bool:
    # A dominant stage's line carries its seconds: only which stage it is, and that it is there, compare.
    return a.kind == "slow-stage" or (a.events == b.events and a.what == b.what)


def findings_diff(a: list[Finding], b: list[Finding],
                  as_a: Callable[[str], str] | None = None) -> tuple[FindingChange, ...]:
    """Findings matched by kind and place (the user's line first); in A's order, then B's new ones. ``as_a``: B's
    places as A's, where the two runs' scripts have different names."""
    as_a = as_a or (lambda text: text)
    by_a: dict[tuple[str, str], Finding] = {}
    for finding in a:
        by_a.setdefault(_key(finding), finding)
    by_b: dict[tuple[str, str], Finding] = {}
    for finding in b:
        kind, where = _key(finding)
        by_b.setdefault((kind, as_a(where)), finding)
    out = []
    for key, old in by_a.items():
        new = by_b.get(key)
        if new is None:
            out.append(FindingChange("went away", old.kind, key[1], old.what, "", old.events, 0))
        elif not _same(old, new):
            out.append(FindingChange("changed", old.kind, key[1], old.what, new.what, old.events, new.events))
    out.extend(FindingChange("appeared", new.kind, key[1], "", new.what, 0, new.events)
               for key, new in by_b.items() if key not in by_a)
    return tuple(out)
