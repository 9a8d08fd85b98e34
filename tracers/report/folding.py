"""What the page's tree folds at real scale: frames Dynamo compiled nothing for, and the translators it nests to inline."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from tracers.tracefile.events import Span

FRAME_CALLBACK = "torch._dynamo.convert_frame:ConvertFrame.__call__"
TRANSLATOR = "torch._dynamo.symbolic_convert:InstructionTranslatorBase.run"
NO_REASON = "Dynamo compiled nothing for it"
MAX_NAMES = 12  # a fold row names its most frequent frames; the trace file has them all


@dataclass
class Fold:
    """One row standing for many spans: what they were, how many, how long in all, and the most frequent names."""

    stage: str
    label: str
    count: int = 0
    total_ns: int = 0
    names: Counter[str] = field(default_factory=Counter)

    def add(self, span: Span, name: str | None) -> None:
        self.count += 1
        self.total_ns += span.duration_ns
        if name:
            self.names[name] += 1


def _descendants(span: Span, children: dict[int, list[Span]]) -> list[Span]:
    found, pending = [], list(children.get(span.id, []))
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children.get(current.id, []))
    return found


def fold_skipped_frames(roots: list[Span], children: dict[int, list[Span]]) -> list[Span | Fold]:
    """Frame callbacks that compiled nothing (no compile id anywhere below) become one row per torch's reason,
    placed where the first of them was."""
    folds: dict[str, Fold] = {}
    out: list[Span | Fold] = []
    for root in roots:
        compiled = root.compile_id or any(span.compile_id for span in _descendants(root, children))
        if root.target != FRAME_CALLBACK or compiled:
            out.append(root)
            continue
        reason = root.skip_reason or NO_REASON
        if reason not in folds:
            folds[reason] = Fold(root.stage, f"Frames Dynamo looked at and compiled nothing for: {reason}")
            out.append(folds[reason])
        folds[reason].add(root, (root.frame or "").split(" (", 1)[0] or None)
    return out


def fold_inlined(span: Span, children: dict[int, list[Span]]) -> list[Span | Fold]:
    """A translator's children, with the translators Dynamo nested inside it (one per inlined call) folded into one
    row; the steps of other stages found beneath them (a graph compiled mid-trace) stay, lifted to this level."""
    kids = children.get(span.id, [])
    if span.target != TRANSLATOR or not any(kid.target == TRANSLATOR for kid in kids):
        return list(kids)
    fold = Fold(span.stage, "Inlined calls Dynamo traced (one nested translator each; by function in "
                            "“Compile time by your code”)")
    out: list[Span | Fold] = []
    pending = list(kids)
    while pending:
        kid = pending.pop(0)
        if kid.target == TRANSLATOR:
            if fold.count == 0:
                out.append(fold)
            fold.add(kid, (kid.frame or "").split(" (", 1)[0] or None)
            # Only the outermost nested run counts toward the time: the deeper ones are inside it.
            fold.total_ns -= sum(inner.duration_ns for inner in children.get(kid.id, []) if inner.target == TRANSLATOR)
            pending[0:0] = children.get(kid.id, [])
        else:
            out.append(kid)
    return out


def children_of(spans: list[Span]) -> dict[int, list[Span]]:
    children: dict[int, list[Span]] = defaultdict(list)
    known = {span.id for span in spans}
    for span in spans:
        if span.parent is not None and span.parent in known:
            children[span.parent].append(span)
    return children
