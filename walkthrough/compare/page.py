"""A comparison as HTML: one fragment for the personal page and the docs' recorded comparison, and the lone page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracers.report.page import page_document
from tracers.report.palette import colour
from tracers.report.text import esc
from tracers.vocabulary.durations import duration
from walkthrough.releases.changes import render_findings
from walkthrough.verify import Finding, Report

from .model import MOVED_SHARE, Comparison, Entry, StageChanges, TimedRow
from .summary import change_text, graph_text, spread_note, stage_title


DIFFERS = ' class="wt-diff-differs"'


def _none(*_: str) -> str | None:
    return None


@dataclass(frozen=True)
class PageLinks:
    """Where the page links: a stage's chapter (this site), and a release's own page of a chapter when it is built."""

    chapter_url: Callable[[str], str | None] = _none  # stage id -> URL
    release_url: Callable[[str, str], str | None] = _none  # (release, docname such as changes) -> URL


def _timing(row: TimedRow, side: str) -> str:
    value = row.a if side == "a" else row.b
    if value is None:
        return '<td class="wt-num wt-muted">—</td>'
    spread = f" (runs {', '.join(duration(ns) for ns in value.runs)})" if len(value.runs) > 1 else ""
    return f'<td class="wt-num" data-ns="{value.median}" title="median{esc(spread)}">{esc(duration(value.median))}</td>'


def _change(row: TimedRow, a: str, b: str) -> str:
    why = row.moved(a, b)
    classes = "wt-compare-change" + (" wt-compare-noise" if row.noise else "") + (" wt-diff-differs" if why else "")
    title = f' title="{esc(why)}"' if why else ""
    return f'<td class="{classes}"{title}>{esc(change_text(row, a, b))}</td>'


def _stage_cell(stage: str, links: PageLinks) -> str:
    swatch = f'<span class="wt-swatch" style="background:{esc(colour(stage))}"></span>'
    url = links.chapter_url(stage)
    title = esc(stage_title(stage))
    return f'<a href="{esc(url)}">{swatch}{title}</a>' if url else f"{swatch}{title}"


def render_stages(comparison: Comparison, links: PageLinks) -> str:
    a, b = comparison.a.release, comparison.b.release
    rows = "".join(f'<tr data-stage="{esc(row.key)}"><th scope="row">{_stage_cell(row.key, links)}</th>'
                   f'{_timing(row, "a")}{_timing(row, "b")}{_change(row, a, b)}</tr>' for row in comparison.stages)
    return (f'<table class="wt-compare-stages"><thead><tr><th>stage</th><th>torch {esc(a)}</th><th>torch {esc(b)}</th>'
            f'<th title="{esc(b)} time / {esc(a)} time">change</th></tr></thead><tbody>{rows}</tbody></table>'
            f'<p class="wt-note">{esc(spread_note(comparison))}</p>')


def _calls(row: TimedRow, comparison: Comparison) -> str:
    return "" if row is comparison.tracing else f"{row.a_calls} / {row.b_calls}"  # the total has no calls


def render_code(comparison: Comparison) -> str:
    if not comparison.code:
        return '<p class="wt-muted">Dynamo traced none of your functions under either release.</p>'
    a, b = comparison.a.release, comparison.b.release
    rows = "".join(f'<tr><td><code>{esc(row.key)}</code></td>{_timing(row, "a")}{_timing(row, "b")}'
                   f'{_change(row, a, b)}<td class="wt-num">{_calls(row, comparison)}</td></tr>'
                   for row in (comparison.tracing, *comparison.code))
    return (f'<h4>Compile time by your functions</h4><table class="wt-by-code-table"><thead><tr>'
            f'<th>function traced (time with what Dynamo inlined)</th><th>torch {esc(a)}</th><th>torch {esc(b)}</th>'
            f'<th>change</th><th>calls</th></tr></thead><tbody>{rows}</tbody></table>')


def render_counts(comparison: Comparison) -> str:
    a, b = comparison.a.release, comparison.b.release
    rows = "".join(f'<tr data-count="{esc(what)}"{DIFFERS if ca != cb else ""}>'
                   f'<th scope="row">{esc(what)}</th><td>{ca}</td><td>{cb}</td></tr>'
                   for what, ca, cb in comparison.counts)
    varied = (f'<p class="wt-note">Not the same in every run (the first run\'s shown): {esc(", ".join(comparison.varied))}'
              f'.</p>' if comparison.varied else "")
    return (f'<h4>Counts (first run of each release)</h4><table class="wt-diff-counts"><thead><tr><th></th>'
            f'<th>torch {esc(a)}</th><th>torch {esc(b)}</th></tr></thead><tbody>{rows}</tbody></table>{varied}')


def render_findings_changes(comparison: Comparison) -> str:
    a, b = comparison.a.release, comparison.b.release
    if not comparison.findings:
        return '<h4>Findings</h4><p class="wt-compare-findings">The findings are the same under both releases.</p>'
    items = "".join(f'<li data-change="{esc(change.change)}" data-kind="{esc(change.kind)}">{esc(change.sentence(a, b))}'
                    f'</li>' for change in comparison.findings)
    return f'<h4>Findings gained, lost or changed</h4><ul class="wt-compare-findings">{items}</ul>'


def _finding(entry: Entry) -> Finding:
    return Finding(entry.kind, entry.name, (), entry.status, entry.old, entry.new, entry.uses, entry.note)


def _stage_changes(stage: StageChanges, comparison: Comparison, links: PageLinks, report: Report) -> str:
    chapter = links.chapter_url(stage.stage)
    read = f' <a href="{esc(chapter)}">the chapter</a>' if chapter else ""
    built = [f'<a href="{esc(url)}">torch {esc(release)}\'s walkthrough</a>'
             for release in (comparison.b.release, comparison.a.release)
             if (url := links.release_url(release, "changes"))]
    where = f' · {" · ".join(built)}' if built else ""
    body = render_findings(tuple(map(_finding, stage.entries)), report) if stage.entries else \
        '<p class="wt-muted">None of its functions changed.</p>'
    return (f'<details class="wt-compare-stage" data-stage="{esc(stage.stage)}"><summary><strong>'
            f'{esc(stage_title(stage.stage))}</strong>: {esc(stage.why)} · {len(stage.entries)} changed, '
            f'{stage.unchanged} the same{read}{where}</summary>{body}</details>')


def render_changes(comparison: Comparison, links: PageLinks) -> str:
    a, b = comparison.a, comparison.b
    report = Report(a.release, a.torch_git, b.release, b.torch_git, "", (), 0.0)
    note = f'<p class="wt-note">{esc(comparison.changes_note)}.</p>' if comparison.changes_note else ""
    intro = (f'<h4>What changed in torch where the time moved</h4><p>The walkthrough\'s entries (hook targets, '
             f'linked functions, excerpts, facts) for the stages whose time or behaviour moved, compared between '
             f'torch {esc(a.release)} and {esc(b.release)}: '
             f'{comparison.compared_entries} entries in all. Places link to torch\'s source at each commit.</p>')
    if not comparison.changes:
        return ('<h4>What changed in torch where the time moved</h4>' + note +
                '<p class="wt-muted">No stage\'s time or behaviour moved (same calls, and every time change within '
                f'the run-to-run spread or under {MOVED_SHARE:.0%}), so no entries of the walkthrough are listed.</p>')
    return intro + note + "".join(_stage_changes(stage, comparison, links, report) for stage in comparison.changes)


def render_graphs(comparison: Comparison) -> str:
    if not comparison.graphs:
        return '<p class="wt-muted">No generated code under either release.</p>'
    a, b = comparison.a.release, comparison.b.release
    differing = sum(graph.differs for graph in comparison.graphs)
    rows = "".join(
        f'<tr data-compile="{esc(graph.compile_id)}"{DIFFERS if graph.differs else ""}>'
        f'<th scope="row"><code>{esc(graph.compile_id)}</code></th>'
        f'<td>{esc(graph_text(graph.a_kernels, graph.a_fused, graph.a_extern))}'
        f'<br><code class="wt-muted">{esc(", ".join(graph.a_kernels or ()))}</code></td>'
        f'<td>{esc(graph_text(graph.b_kernels, graph.b_fused, graph.b_extern))}'
        f'<br><code class="wt-muted">{esc(", ".join(graph.b_kernels or ()))}</code></td></tr>'
        for graph in comparison.graphs)
    return (f'<details class="wt-compare-graphs"><summary>Generated code per compiled graph: {differing} of '
            f'{len(comparison.graphs)} differ</summary><table class="wt-diff-compiles"><thead><tr><th>compile</th>'
            f'<th>torch {esc(a)}</th><th>torch {esc(b)}</th></tr></thead><tbody>{rows}</tbody></table></details>')


def _side(side, key: str) -> str:  # noqa: ANN001 - model.ReleaseSide
    codes = ", ".join(map(str, side.exit_codes))
    failed = ' <strong class="wt-compare-failed">the script failed</strong>' if any(side.exit_codes) else ""
    return (f'<li data-side="{key}"><strong>torch {esc(side.release)}</strong>: {esc(side.torch_version)} '
            f'<span class="wt-muted">(git {esc(side.torch_git[:12])})</span> · exit {esc(codes)}{failed}</li>')


def render_comparison(comparison: Comparison, links: PageLinks = PageLinks(), title: str = "") -> str:
    """The whole comparison, self-contained but for the trace stylesheet."""
    heading = esc(title or comparison.command)
    header = (f'<div class="wt-trace-header"><span class="wt-trace-title">{heading}</span>: torch '
              f'{esc(comparison.a.release)} vs {esc(comparison.b.release)} · {esc(comparison.device)} · '
              f'{esc(comparison.cache)} caches</div><ul class="wt-diff-sides">{_side(comparison.a, "a")}'
              f'{_side(comparison.b, "b")}</ul>')
    parts = (("stages", render_stages(comparison, links)), ("code", render_code(comparison)),
             ("counts", render_counts(comparison)), ("findings", render_findings_changes(comparison)),
             ("changes", render_changes(comparison, links)), ("graphs", render_graphs(comparison)))
    body = "".join(f'<section class="wt-trace-part" data-part="compare-{name}">{html}</section>' for name, html in parts)
    return f'<div class="wt-trace wt-trace-compare">{header}{body}</div>'


def render_page(comparison: Comparison, links: PageLinks = PageLinks()) -> str:
    """One self-contained file that opens from disk."""
    title = f"{comparison.command}: torch {comparison.a.release} vs {comparison.b.release}"
    return page_document(title, render_comparison(comparison, links), None)
