"""A comparison as HTML (templates/compare.html): one fragment for the personal page and the docs' recorded
comparison, and the lone page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from tracers.report.page import page_document
from tracers.report.palette import StageLabel, stage_label
from tracers.report.templating import render_from, safe
from tracers.vocabulary.durations import duration
from walkthrough.releases.changes import render_findings
from walkthrough.verify import Finding, Report

from .model import MOVED_SHARE, Comparison, Entry, ReleaseSide, StageChanges, TimedRow
from .said import is_change, sentence
from .summary import EXCLUSIVE, INCLUSIVE, change_text, graph_text, spread_note, stage_title


def _none(*_: str) -> str | None:
    return None


@dataclass(frozen=True)
class PageLinks:
    """Where the page links: a stage's chapter (this site), and a release's own page of a chapter when it is built."""

    chapter_url: Callable[[str], str | None] = _none  # stage id -> URL
    release_url: Callable[[str, str], str | None] = _none  # (release, docname such as changes) -> URL


@dataclass(frozen=True)
class TimingCell:
    """A median time with the runs it is the median of; ``time`` None: the row never ran under that release."""

    ns: int | None = None
    spread: str = ""
    time: str | None = None


@dataclass(frozen=True)
class TimedView:
    key: str
    label: StageLabel | None  # a stage's row head; None for a function's row
    a: TimingCell
    b: TimingCell
    classes: str
    why: str  # why the change counts as moved; "": it does not
    change: str
    calls: str = ""


@dataclass(frozen=True)
class SideView:
    key: str
    release: str
    version: str
    git: str
    codes: str
    failed: bool
    build: str


@dataclass(frozen=True)
class StageChangesView:
    stage: str
    title: str
    why: str
    changed: int
    unchanged: int
    chapter: str | None
    built: tuple[tuple[str, str], ...]  # (release, URL of its walkthrough's changes page)
    findings: Markup | None  # None: none of the stage's functions changed


@dataclass(frozen=True)
class GraphView:
    compile_id: str
    differs: bool
    sides: tuple[tuple[str, str], ...]  # (what was generated, kernel names) under A, under B


@dataclass(frozen=True)
class CompareView:
    title: str
    device: str
    cache: str
    a: SideView
    b: SideView
    build_note: str
    stages: tuple[TimedView, ...]
    own_stages: tuple[TimedView, ...]
    inclusive: str
    exclusive: str
    spread_note: str
    dominant: str
    code: tuple[TimedView, ...]  # empty: Dynamo traced none of the user's functions
    counts: tuple[tuple[str, int, int], ...]
    varied: str
    findings: tuple[tuple[str, str, str], ...]  # (change, kind, sentence): the causes that changed
    within_spread: tuple[tuple[str, str, str], ...]  # causes found in some runs only, or counts whose runs overlap
    same: tuple[tuple[str, str, str], ...]  # causes the same under both (a moved line said, not as a change)
    changes: tuple[StageChangesView, ...]
    changes_note: str
    compared_entries: int
    moved_share: str
    graphs: tuple[GraphView, ...]
    graphs_differing: int


def _timing(row: TimedRow, side: str) -> TimingCell:
    value = row.a if side == "a" else row.b
    if value is None:
        return TimingCell()
    spread = f" (runs {', '.join(duration(ns) for ns in value.runs)})" if len(value.runs) > 1 else ""
    return TimingCell(value.median, spread, duration(value.median))


def _timed(row: TimedRow, comparison: Comparison, label: StageLabel | None = None) -> TimedView:
    a, b = comparison.a.release, comparison.b.release
    why = row.moved(a, b)
    classes = "wt-compare-change" + (" wt-compare-noise" if row.noise else "") + (" wt-diff-differs" if why else "")
    calls = "" if row is comparison.tracing else f"{row.a_calls} / {row.b_calls}"  # the total has no calls
    return TimedView(row.key, label, _timing(row, "a"), _timing(row, "b"), classes, why, change_text(row, a, b), calls)


def _finding(entry: Entry) -> Finding:
    return Finding(entry.kind, entry.name, (), entry.status, entry.old, entry.new, entry.uses, entry.note)


def _stage_changes(stage: StageChanges, comparison: Comparison, links: PageLinks, report: Report) -> StageChangesView:
    built = tuple((release, url) for release in (comparison.b.release, comparison.a.release)
                  if (url := links.release_url(release, "changes")))
    findings = safe(render_findings(tuple(map(_finding, stage.entries)), report)) if stage.entries else None
    return StageChangesView(stage.stage, stage_title(stage.stage), stage.why, len(stage.entries), stage.unchanged,
                            links.chapter_url(stage.stage), built, findings)


def _side(side: ReleaseSide, key: str) -> SideView:
    return SideView(key, side.release, side.torch_version, side.torch_git[:12], ", ".join(map(str, side.exit_codes)),
                    any(side.exit_codes), side.build)


def _graph(graph) -> GraphView:  # noqa: ANN001 - model.GraphCode
    return GraphView(graph.compile_id, graph.differs,
                     ((graph_text(graph.a_kernels, graph.a_fused, graph.a_extern), ", ".join(graph.a_kernels or ())),
                      (graph_text(graph.b_kernels, graph.b_fused, graph.b_extern), ", ".join(graph.b_kernels or ()))))


def render_comparison(comparison: Comparison, links: PageLinks = PageLinks(), title: str = "") -> str:
    """The whole comparison, self-contained but for the trace stylesheet."""
    a, b = comparison.a, comparison.b
    report = Report(a.release, a.torch_git, b.release, b.torch_git, "", (), 0.0)
    stages = tuple(_timed(row, comparison, stage_label(row.key, links.chapter_url, stage_title(row.key)))
                   for row in comparison.stages)
    code = tuple(_timed(row, comparison) for row in (comparison.tracing, *comparison.code)) if comparison.code else ()
    own = tuple(_timed(row, comparison, stage_label(row.key, links.chapter_url, stage_title(row.key)))
                for row in comparison.own_stages)

    def said(keep) -> tuple[tuple[str, str, str], ...]:  # noqa: ANN001 - a predicate on a CauseChange
        return tuple((change.change, change.kind, sentence(change, a.release, b.release))
                     for change in comparison.causes if keep(change))

    view = CompareView(
        title or comparison.command, comparison.device, comparison.cache, _side(a, "a"), _side(b, "b"),
        comparison.build_note, stages, own, INCLUSIVE, EXCLUSIVE, spread_note(comparison), comparison.dominant,
        code, tuple(comparison.counts), ", ".join(comparison.varied),
        said(is_change), said(lambda change: change.change == "varies"), said(lambda change: change.change == "same"),
        tuple(_stage_changes(stage, comparison, links, report) for stage in comparison.changes),
        comparison.changes_note, comparison.compared_entries, f"{MOVED_SHARE:.0%}",
        tuple(map(_graph, comparison.graphs)), sum(graph.differs for graph in comparison.graphs))
    return render_from(__package__, "compare.html", view=view)


def render_page(comparison: Comparison, links: PageLinks = PageLinks()) -> str:
    """One self-contained file that opens from disk."""
    title = f"{comparison.command}: torch {comparison.a.release} vs {comparison.b.release}"
    return page_document(title, render_comparison(comparison, links), None)
