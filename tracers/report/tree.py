"""The call tree as nested <details>: one node per span, open or closed without any JavaScript."""

from __future__ import annotations

from collections import defaultdict

from tracers.events import Span

from .options import Links
from .palette import colour, stage_title
from .text import duration, esc, span_title, target_label

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

    def node(span: Span, level: int, parent_frame: str | None) -> str:
        head = _summary(span, links, show_frame=span.frame is not None and span.frame != parent_frame)
        kids = children.get(span.id, [])
        if not kids:
            return f'<div class="wt-node wt-leaf" data-span="{esc(span.id)}">{head}</div>'
        is_open = leads_to_open[span.id] if open_stages is not None else level < DEFAULT_OPEN_LEVELS
        inner = "".join(node(child, level + 1, span.frame or parent_frame) for child in kids)
        return (f'<details class="wt-node" data-span="{esc(span.id)}"{" open" if is_open else ""}>'
                f'<summary>{head}</summary><div class="wt-children">{inner}</div></details>')

    if not roots:
        return '<div class="wt-trace-tree wt-trace-empty">No compile step was recorded.</div>'
    return f'<div class="wt-trace-tree">{"".join(node(root, 0, None) for root in roots)}</div>'


def _summary(span: Span, links: Links, show_frame: bool) -> str:
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
    if span.compile_id:
        pieces.append(f'<span class="wt-compile-id" title="compile id">{esc(span.compile_id)}</span>')
    if show_frame:
        pieces.append(f'<span class="wt-frame">{esc(span.frame)}</span>')
    if span.error:
        pieces.append(f'<span class="wt-flag">raised {esc(span.error)}</span>')
    if span.unfinished:
        pieces.append('<span class="wt-flag">unfinished</span>')
    return " ".join(pieces)
