"""The stage timeline as inline SVG: one bar per span, x by start, width by duration, row by depth."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Artifact, Span
from tracers.vocabulary.durations import duration

from .folding import TRANSLATOR
from .options import Links
from .palette import colour, stage_sort_key, stage_title
from .templating import render, value_html as _v
from .text import span_title

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


@dataclass(frozen=True)
class Bar:
    """One span (or several too short to draw apart) as a rectangle; x and width in viewBox units, formatted."""

    span: int
    x: str
    y: int
    width: str
    classes: str
    colour: str
    title: str
    chapter: str | None


@dataclass(frozen=True)
class Mark:
    """A graph break or recompile as a vertical line at its moment."""

    kind: str
    x: str
    title: str


@dataclass(frozen=True)
class LegendItem:
    stage: str
    title: str
    chapter: str | None
    colour: str
    time: str
    calls: int


@dataclass(frozen=True)
class TimelineView:
    width: int
    height: int
    row: int
    steps: int  # the spans drawn
    bars: Markup  # the bars' SVG, built in Python (_bars_svg): thousands of them on a large log
    marks: tuple[Mark, ...]
    total_ns: int
    total: str
    legend: tuple[LegendItem, ...]
    legend_marks: tuple[tuple[str, str], ...]  # (kind, name) of the marks drawn
    nested: int  # translators drawn within their outermost translator's bar


def _marker(artifact: Artifact, x: float) -> Mark:
    meta = artifact.metadata
    if artifact.kind == "break":
        detail = f"at {meta.get('location', '?')}: {meta.get('title') or meta.get('reason') or ''}"
    else:
        detail = "; ".join(str(reason) for reason in meta.get("reasons", []))
    title = f"{MARKED_KINDS[artifact.kind]} (compile {artifact.compile_id or '?'}) {detail}".strip()
    return Mark(artifact.kind, f"{x:.2f}", title)


def _drawn(spans: list[Span]) -> list[Span]:
    """The spans the timeline draws: a translator Dynamo nested inside another (one per inlined call; thousands in a
    real model) lies within its parent's bar, and the tree and the code view break it down."""
    by_id = {span.id: span for span in spans}
    return [span for span in spans
            if not (span.target == TRANSLATOR and span.parent in by_id and by_id[span.parent].target == TRANSLATOR)]


def render_timeline(spans: list[Span], facts: TraceFacts, links: Links, artifacts: list[Artifact] = ()) -> str:
    """The timeline part (templates/timeline.html)."""
    if not spans:
        return render("timeline.html", view=None)
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
        classes = "wt-bar" + (" wt-bar-error" if span.error or span.unfinished else "")
        title = span_title(span, stage_title(span.stage))
        if len(group) > 1:
            title = f"{len(group)} calls too short to draw apart, from: {title}"
        bars.append(Bar(span.id, f"{x:.2f}", rows[span.id] * (ROW + GAP), f"{width:.2f}", classes, colour(span.stage),
                        title, links.chapter_url(span.stage)))
    marked = [artifact for artifact in artifacts
              if artifact.kind in MARKED_KINDS and origin <= artifact.ts_ns <= origin + total]
    marks = tuple(_marker(artifact, (artifact.ts_ns - origin) / total * WIDTH) for artifact in marked)
    kinds = {artifact.kind for artifact in marked}
    legend_marks = tuple((kind, name) for kind, name in MARKED_KINDS.items() if kind in kinds)
    view = TimelineView(WIDTH, height, ROW, len(spans), _bars_svg(bars, ROW), marks, total, duration(total),
                        legend(facts, links), legend_marks, nested)
    return render("timeline.html", view=view)


def _bars_svg(bars: list[Bar], row: int) -> Markup:
    """The bars as templates/timeline.html drew them, a rect each (linked to its chapter), every value escaped:
    a 1,000-compile log draws 5,000 bars, a Jinja2 loop's third of the timeline's time."""
    drawn = []
    for bar in bars:
        rect = (f'<rect class="{_v(bar.classes)}" data-span="{_v(bar.span)}" x="{_v(bar.x)}" y="{_v(bar.y)}" '
                f'width="{_v(bar.width)}" height="{_v(row)}" fill="{_v(bar.colour)}"><title>{_v(bar.title)}</title>'
                "</rect>")
        drawn.append(f'<a href="{_v(bar.chapter)}">{rect}</a>' if bar.chapter else rect)
    return Markup("".join(drawn))


def legend(facts: TraceFacts, links: Links) -> tuple[LegendItem, ...]:
    """The stages that ran, in pipeline order, each with its colour and time (outermost calls only)."""
    return tuple(LegendItem(stage, stage_title(stage), links.chapter_url(stage), colour(stage),
                            duration(facts.stage_time_ns.get(stage, 0)), facts.stage_calls[stage])
                 for stage in sorted(facts.stage_calls, key=stage_sort_key))
