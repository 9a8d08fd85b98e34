"""The stage timeline as inline SVG: one bar per span, x by start, width by duration, row by depth."""

from __future__ import annotations

from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Artifact, Span
from tracers.vocabulary.durations import duration

from .folding import TRANSLATOR
from .options import Links
from .palette import colour, stage_sort_key, stage_title
from .text import esc, span_title

WIDTH = 1000  # viewBox units; the SVG stretches to the column, so only ratios matter
ROW = 12
GAP = 2
MIN_BAR = 0.6  # the shortest calls would vanish at true width; keep them visible as slivers


def _rows(spans: list[Span]) -> dict[int, int]:
    """Row of each span: its depth, with threads stacked in bands so their bars never overlap."""
    by_thread: dict[int, list[Span]] = {}
    for span in spans:
        by_thread.setdefault(span.thread_id, []).append(span)
    rows: dict[int, int] = {}
    offset = 0
    for thread_spans in by_thread.values():  # first-seen order: the main thread first
        for span in thread_spans:
            rows[span.id] = offset + span.depth
        offset += max(span.depth for span in thread_spans) + 1
    return rows


def _merge_slivers(spans: list[Span], rows: dict[int, int], origin: int, total: int) -> list[list[Span]]:
    """Spans grouped into the bars to draw: a span of the same stage and row that starts where the
    previous bar still covers (at its drawn width) joins it. Hundreds of calls a few microseconds
    apart otherwise become hundreds of overlapping slivers that look like one and weigh a lot."""
    groups: list[list[Span]] = []
    last_on_row: dict[int, tuple[list[Span], float]] = {}
    for span in sorted(spans, key=lambda span: span.start_ns):
        row = rows[span.id]
        x = (span.start_ns - origin) / total * WIDTH
        right = x + max(span.duration_ns / total * WIDTH, MIN_BAR)
        previous = last_on_row.get(row)
        plain = not (span.error or span.unfinished)
        if previous and plain and previous[0][0].stage == span.stage and x <= previous[1] \
                and not (previous[0][0].error or previous[0][0].unfinished):
            previous[0].append(span)
            last_on_row[row] = (previous[0], max(previous[1], right))
        else:
            groups.append([span])
            last_on_row[row] = (groups[-1], right)
    return groups


MARKED_KINDS = {"break": "graph break", "recompile": "recompile"}  # moments a learner looks for on the timeline


def _marker(artifact: Artifact, x: float, height: int) -> str:
    meta = artifact.metadata
    if artifact.kind == "break":
        detail = f"at {meta.get('location', '?')}: {meta.get('title') or meta.get('reason') or ''}"
    else:
        detail = "; ".join(str(reason) for reason in meta.get("reasons", []))
    title = f"{MARKED_KINDS[artifact.kind]} (compile {artifact.compile_id or '?'}) {detail}".strip()
    return (f'<line class="wt-mark wt-mark-{artifact.kind}" x1="{x:.2f}" x2="{x:.2f}" y1="0" y2="{height}">'
            f'<title>{esc(title)}</title></line>')


def _drawn(spans: list[Span]) -> list[Span]:
    """The spans the timeline draws: a translator Dynamo nested inside another (one per inlined call; thousands in a
    real model) lies within its parent's bar, and the tree and the code view break it down."""
    by_id = {span.id: span for span in spans}
    return [span for span in spans
            if not (span.target == TRANSLATOR and span.parent in by_id and by_id[span.parent].target == TRANSLATOR)]


def render_timeline(spans: list[Span], facts: TraceFacts, links: Links, artifacts: list[Artifact] = ()) -> str:
    if not spans:
        return '<div class="wt-trace-timeline wt-trace-empty">No compile step was recorded.</div>'
    nested = len(spans)
    spans = _drawn(spans)
    nested -= len(spans)
    origin = min(span.start_ns for span in spans)
    total = max(max((span.end_ns or span.start_ns) for span in spans) - origin, 1)
    rows = _rows(spans)
    height = (max(rows.values()) + 1) * (ROW + GAP)
    bars = []
    for group in _merge_slivers(spans, rows, origin, total):
        span = group[0]
        x = (span.start_ns - origin) / total * WIDTH
        end = max((member.end_ns or member.start_ns) for member in group)
        width = max((end - span.start_ns) / total * WIDTH, MIN_BAR)
        y = rows[span.id] * (ROW + GAP)
        classes = "wt-bar" + (" wt-bar-error" if span.error or span.unfinished else "")
        title = span_title(span, stage_title(span.stage))
        if len(group) > 1:
            title = f"{len(group)} calls too short to draw apart, from: {title}"
        bar = (f'<rect class="{classes}" data-span="{esc(span.id)}" x="{x:.2f}" y="{y}" width="{width:.2f}" '
               f'height="{ROW}" fill="{colour(span.stage)}"><title>{esc(title)}</title></rect>')
        chapter = links.chapter_url(span.stage)
        bars.append(f'<a href="{esc(chapter)}">{bar}</a>' if chapter else bar)
    marked = [artifact for artifact in artifacts
              if artifact.kind in MARKED_KINDS and origin <= artifact.ts_ns <= origin + total]
    bars += [_marker(artifact, (artifact.ts_ns - origin) / total * WIDTH, height) for artifact in marked]
    svg = (f'<svg class="wt-trace-svg" viewBox="0 0 {WIDTH} {height}" preserveAspectRatio="none" '
           f'width="100%" height="{height}" role="img" aria-label="Timeline of {len(spans)} compile steps">'
           f'{"".join(bars)}</svg>')
    axis = (f'<div class="wt-trace-axis" data-total-ns="{total}"><span>0</span>'
            f'<span class="wt-zoom-help wt-muted"></span><span>{esc(duration(total))}</span></div>')
    note = (f'<p class="wt-note">{nested} inlined calls (translators Dynamo nested inside another) are drawn within '
            'their outermost translator\'s bar; the tree and “Compile time by your code” break them down.</p>'
            if nested else "")
    return (f'<div class="wt-trace-timeline">{svg}{axis}{render_legend(facts, links, {a.kind for a in marked})}'
            f'{note}</div>')


def render_legend(facts: TraceFacts, links: Links, marks: set[str] = frozenset()) -> str:
    """The stages that ran, in pipeline order, each with its colour and time (outermost calls only)."""
    items = []
    for stage in sorted(facts.stage_calls, key=stage_sort_key):
        name = esc(stage_title(stage))
        chapter = links.chapter_url(stage)
        label = f'<a href="{esc(chapter)}">{name}</a>' if chapter else name
        calls = facts.stage_calls[stage]
        items.append(f'<li data-stage="{esc(stage)}"><span class="wt-swatch" style="background:{colour(stage)}">'
                     f'</span>{label} <span class="wt-muted">{esc(duration(facts.stage_time_ns.get(stage, 0)))}'
                     f' · {calls} call{"s" if calls != 1 else ""}</span></li>')
    for kind, name in MARKED_KINDS.items():
        if kind in marks:
            items.append(f'<li data-mark="{kind}"><span class="wt-swatch-mark wt-mark-{kind}"></span>{name}</li>')
    return f'<ul class="wt-trace-legend">{"".join(items)}</ul>'
