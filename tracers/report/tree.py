"""The call tree as nested <details>: one node per span, open or closed without any JavaScript."""

from __future__ import annotations

from collections import defaultdict

from tracers.tracefile.events import Span
from tracers.vocabulary.durations import duration

from .folding import MAX_NAMES, Fold, fold_inlined, fold_skipped_frames
from .options import Links
from .palette import colour, stage_title
from .text import esc, span_title, target_label

DEFAULT_OPEN_LEVELS = 2


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

    def node(span: Span, level: int, parent_frame: str | None, repeats: list[Span] | None = None,
             below_compile: bool = False) -> str:
        head = _summary(span, links, show_frame=span.frame is not None and span.frame != parent_frame,
                        repeats=repeats)
        kids = fold_inlined(span, children)
        if not kids:
            return f'<div class="wt-node wt-leaf" data-span="{esc(span.id)}">{head}</div>'
        # Down to each frame compile the tree is open; below it, closed: a real model's compile has thousands of steps.
        is_open = leads_to_open[span.id] if open_stages is not None else not below_compile
        frame = span.frame or parent_frame
        inner = items(kids, level + 1, frame, below_compile or span.target == COMPILE_STEP)
        return (f'<details class="wt-node" data-span="{esc(span.id)}"{" open" if is_open else ""}>'
                f'<summary>{head}</summary><div class="wt-children">{inner}</div></details>')

    def items(kids: list[Span | Fold], level: int, frame: str | None, below_compile: bool) -> str:
        rendered = []
        for run in _runs(kids):
            if isinstance(run[0], Fold):
                rendered.append(_fold(run[0], links))
            elif len(run) == 1:
                rendered.append(node(run[0], level, frame, below_compile=below_compile))
            else:
                rendered.append(group(run, level, frame, below_compile))
        return "".join(rendered)

    def group(run: list[Span], level: int, frame: str | None, below_compile: bool = False) -> str:
        """Many consecutive calls of one target: one line, and inside it one node per distinct
        way they went (the first such call stands for the others, with their count and total time)."""
        total = sum(span.duration_ns for span in run)
        head = (f'<code class="wt-target">{esc(target_label(run[0].target))}</code> '
                f'<span class="wt-time">{esc(duration(total))}</span>'
                f'<span class="wt-repeat" title="consecutive calls">×{len(run)}</span>')
        inner = "".join(node(same[0], level + 1, frame, repeats=same, below_compile=below_compile)
                        for same in _by_shape(run, children))
        is_open = (any(leads_to_open[span.id] for span in run) if open_stages is not None
                   else level < DEFAULT_OPEN_LEVELS and not below_compile)
        return (f'<details class="wt-group"{" open" if is_open else ""}><summary>{head}</summary>'
                f'<div class="wt-children">{inner}</div></details>')

    if not roots:
        return '<div class="wt-trace-tree wt-trace-empty">No compile step was recorded.</div>'
    return f'<div class="wt-trace-tree">{items(fold_skipped_frames(roots, children), 0, None, False)}</div>'


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


def _fold(fold: Fold, links: Links) -> str:
    """A row standing for many spans, with the names it folds (the most frequent first)."""
    chapter = links.chapter_url(fold.stage)
    stage = esc(stage_title(fold.stage))
    stage_html = f'<a class="wt-chapter" href="{esc(chapter)}">{stage}</a>' if chapter else stage
    names = "".join(f"<li><code>{esc(name)}</code> ×{count}</li>" for name, count in fold.names.most_common(MAX_NAMES))
    more = len(fold.names) - MAX_NAMES
    if more > 0:
        names += f'<li class="wt-muted">and {more} more</li>'
    return (f'<details class="wt-fold"><summary><span class="wt-swatch" style="background:{colour(fold.stage)}">'
            f'</span><span class="wt-fold-label">{esc(fold.label)}</span> <span class="wt-stage">{stage_html}</span> '
            f'<span class="wt-time">{esc(duration(fold.total_ns))}</span><span class="wt-repeat">×{fold.count}</span>'
            f'</summary><ul class="wt-children wt-fold-names">{names}</ul></details>')


def _summary(span: Span, links: Links, show_frame: bool, repeats: list[Span] | None = None) -> str:
    stage = stage_title(span.stage)
    chapter = links.chapter_url(span.stage)
    source = links.source_url(span.target)
    label = f'<code class="wt-target">{esc(target_label(span.target))}</code>'
    if source:
        title = esc(f"{span.target} in torch's source")
        label = f'<a class="wt-source" href="{esc(source)}" title="{title}">{label}</a>'
    stage_html = esc(stage)
    if chapter:
        stage_html = f'<a class="wt-chapter" href="{esc(chapter)}">{stage_html}</a>'
    pieces = [
        f'<span class="wt-swatch" style="background:{colour(span.stage)}" title="{esc(span_title(span, stage))}">'
        f'</span>',
        label,
        f'<span class="wt-stage">{stage_html}</span>',
        f'<span class="wt-time">{esc(duration(span.duration_ns))}</span>',
    ]
    if repeats and len(repeats) > 1:
        pieces[-1] = (f'<span class="wt-time">{esc(duration(sum(s.duration_ns for s in repeats)))}</span>'
                      f'<span class="wt-repeat" title="calls that did the same, shown once">×{len(repeats)}</span>')
    if span.compile_id:
        pieces.append(f'<span class="wt-compile-id" title="compile id">{esc(span.compile_id)}</span>')
    if show_frame:
        pieces.append(f'<span class="wt-frame">{esc(span.frame)}</span>')
    if span.error:
        pieces.append(f'<span class="wt-flag">raised {esc(span.error)}</span>')
    if span.unfinished:
        pieces.append('<span class="wt-flag">unfinished</span>')
    return " ".join(pieces)
