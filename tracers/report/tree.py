"""The call tree as nested <details> (templates/tree.html): one node per span, open or closed without any JavaScript."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tracers.tracefile.events import Span
from tracers.vocabulary.durations import duration

from .folding import MAX_NAMES, Fold, fold_inlined, fold_skipped_frames
from .options import Links
from .palette import StageLabel, colour, stage_label, stage_title
from .templating import render
from .text import span_title, target_label

DEFAULT_OPEN_LEVELS = 2
# Rows the page draws, in reading order; past them each list of calls ends in one row that counts the rest. A log of
# hundreds of thousands of timed regions would otherwise make a page of as many rows (and hold them all while
# writing it); the trace file keeps every call, for Perfetto.
MAX_TREE_ROWS = 5_000


def children_by_parent(spans: list[Span]) -> tuple[list[Span], dict[int, list[Span]]]:
    """Roots (no parent, or a parent not in the trace) and each span's children, in call order."""
    known = {span.id for span in spans}
    children: dict[int, list[Span]] = defaultdict(list)
    roots = []
    for span in spans:
        if span.parent is None or span.parent not in known:
            roots.append(span)
        else:
            children[span.parent].append(span)
    return roots, children


COMPILE_STEP = "torch._dynamo.convert_frame:_compile"  # below one frame compile, nodes start closed


@dataclass(frozen=True)
class Head:
    """A node's line: swatch, target (linked to torch's source), stage (linked to its chapter), time and marks."""

    target: str
    label: str
    source_url: str | None
    stage: str
    chapter: str | None
    colour: str
    hover: str
    time: str
    repeats: int  # calls that did the same, shown once; 0: one call
    compile_id: str | None
    frame: str | None  # said where it differs from the parent's
    error: str | None
    unfinished: bool


@dataclass(frozen=True)
class Node:
    kind: str  # leaf or node
    span: int
    head: Head
    open: bool = False
    children: tuple = ()


@dataclass(frozen=True)
class Group:
    """Many consecutive calls of one target: one line, and inside it one node per distinct way they went."""

    label: str
    time: str
    count: int
    open: bool
    children: tuple[Node, ...]
    kind: str = "group"


@dataclass(frozen=True)
class FoldView:
    """A row standing for many spans, with the names it folds (the most frequent first)."""

    label: str
    stage: StageLabel
    time: str
    count: int
    names: tuple[tuple[str, int], ...]
    more: int
    kind: str = "fold"


def render_tree(spans: list[Span], links: Links, open_stages: frozenset[str] | None = None) -> str:
    roots, children = children_by_parent(spans)
    # A node named in open_stages starts open, and so does every node on the way to it: an open node
    # inside a closed one would stay hidden.
    leads_to_open: dict[int, bool] = {}

    def mark(span: Span) -> bool:
        below = [mark(child) for child in children.get(span.id, [])]
        leads_to_open[span.id] = span.stage in (open_stages or ()) or any(below)
        return leads_to_open[span.id]

    for root in roots:
        mark(root)

    drawn = 0

    def node(span: Span, level: int, parent_frame: str | None, repeats: list[Span] | None = None,
             below_compile: bool = False) -> Node:
        nonlocal drawn
        drawn += 1
        head = _head(span, links, show_frame=span.frame is not None and span.frame != parent_frame, repeats=repeats)
        kids = fold_inlined(span, children)
        if not kids:
            return Node("leaf", span.id, head)
        # Down to each frame compile the tree is open; below it, closed: a real model's compile has thousands of steps.
        is_open = leads_to_open[span.id] if open_stages is not None else not below_compile
        frame = span.frame or parent_frame
        return Node("node", span.id, head, is_open, items(kids, level + 1, frame, below_compile or span.target == COMPILE_STEP))

    def items(kids: list[Span | Fold], level: int, frame: str | None, below_compile: bool) -> tuple:
        rendered = []
        runs = _runs(kids)
        for at, run in enumerate(runs):
            if drawn >= MAX_TREE_ROWS:
                rendered.append(_fold(_not_drawn(runs[at:]), links))
                break
            if isinstance(run[0], Fold):
                rendered.append(_fold(run[0], links))
            elif len(run) == 1:
                rendered.append(node(run[0], level, frame, below_compile=below_compile))
            else:
                rendered.append(group(run, level, frame, below_compile))
        return tuple(rendered)

    def group(run: list[Span], level: int, frame: str | None, below_compile: bool = False) -> Group:
        """The first call of each distinct way stands for the others, with their count and total time."""
        nonlocal drawn
        drawn += 1
        inner = tuple(node(same[0], level + 1, frame, repeats=same, below_compile=below_compile)
                      for same in _by_shape(run, children))
        is_open = (any(leads_to_open[span.id] for span in run) if open_stages is not None
                   else level < DEFAULT_OPEN_LEVELS and not below_compile)
        return Group(target_label(run[0].target), duration(sum(span.duration_ns for span in run)), len(run), is_open,
                     inner)

    return render("tree.html", roots=items(fold_skipped_frames(roots, children), 0, None, False) if roots else ())


# Fewer consecutive calls of one target than this stay separate nodes; more become one group
# (under compiled autograd's capture Dynamo is offered hundreds of frames and skips them).
COLLAPSE_AT = 4


def _shape(span: Span, children: dict[int, list[Span]]) -> tuple:
    """What a call did, without its times: target, how it ended, and its children's shapes."""
    kids = tuple(_shape(kid, children) for kid in children.get(span.id, []))
    return (span.target, span.error, span.unfinished, kids)


def _runs(kids: list[Span | Fold]) -> list[list[Span | Fold]]:
    """Consecutive siblings of one target, grouped when there are many; every other span (and fold) alone."""
    runs: list[list[Span | Fold]] = []
    for kid in kids:
        if runs and not isinstance(kid, Fold) and not isinstance(runs[-1][0], Fold) and runs[-1][0].target == kid.target:
            runs[-1].append(kid)
        else:
            runs.append([kid])
    return [piece for run in runs for piece in ([run] if len(run) >= COLLAPSE_AT else [[span] for span in run])]


def _by_shape(run: list[Span], children: dict[int, list[Span]]) -> list[list[Span]]:
    """The calls of a run that did exactly the same, together, in first-seen order."""
    groups: dict[tuple, list[Span]] = {}
    for span in run:
        groups.setdefault(_shape(span, children), []).append(span)
    return list(groups.values())


def _not_drawn(runs: list[list[Span | Fold]]) -> Fold:
    """The calls left when the page's rows ran out: one row with their count, time and most frequent names."""
    spans = [item for run in runs for item in run if isinstance(item, Span)]
    fold = Fold(spans[0].stage if spans else "", f"Calls past the page's first {MAX_TREE_ROWS:,} rows, not drawn "
                                                 "here (each with what it called; the trace file has them all, "
                                                 "for Perfetto)")
    for span in spans:
        fold.add(span, target_label(span.target))
    for item in (item for run in runs for item in run if isinstance(item, Fold)):
        fold.count += item.count
        fold.total_ns += item.total_ns
        fold.names.update(item.names)
    return fold


def _fold(fold: Fold, links: Links) -> FoldView:
    names = tuple(fold.names.most_common(MAX_NAMES))
    return FoldView(fold.label, stage_label(fold.stage, links.chapter_url), duration(fold.total_ns), fold.count, names,
                    len(fold.names) - MAX_NAMES)


def _head(span: Span, links: Links, show_frame: bool, repeats: list[Span] | None = None) -> Head:
    stage = stage_title(span.stage)
    many = bool(repeats and len(repeats) > 1)
    time = duration(sum(s.duration_ns for s in repeats) if many else span.duration_ns)
    return Head(span.target, target_label(span.target), links.source_url(span.target), stage,
                links.chapter_url(span.stage), colour(span.stage), span_title(span, stage), time,
                len(repeats) if many else 0, span.compile_id, span.frame if show_frame else None, span.error,
                span.unfinished)
