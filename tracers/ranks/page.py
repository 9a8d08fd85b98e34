"""The multi-rank HTML: divergence first, ranks side by side, one aligned timeline with a band per rank."""

from __future__ import annotations

import os
from pathlib import Path

from tracers.report.links import links_for
from tracers.report.options import Links, RenderOptions
from tracers.report.palette import colour, stage_title
from tracers.report.text import esc
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.events import Span
from tracers.vocabulary.durations import duration
from tracers.vocabulary.exported import export_line, export_of

from .divergence import Divergence
from .findings import shared_findings, who
from .summary import COUNTS, RankReport

BAND_ROWS = 3  # nesting levels drawn per rank: the outer steps, enough to see who compiles when
ROW, GAP, WIDTH = 10, 2, 1000


class PageUnavailable(Exception):
    """The page needs Pygments (the `page` extra); one line says so."""


def _report_modules():  # noqa: ANN202 - the page's modules, imported only when a page is drawn
    try:
        from tracers.report import fragment, page
    except ImportError as error:
        raise PageUnavailable(f"the HTML page needs {error.name}: pip install pygments") from None
    return fragment, page


def render_ranks(result: RankReport, links: Links | None = None) -> str:
    """The multi-rank block (the site's directive and the standalone page share it)."""
    fragment, _ = _report_modules()
    links = links or Links()
    run = result.run
    versions = sorted({trace.info.torch_version for _, trace in run.present})
    header = (f'<div class="wt-trace-header"><span class="wt-trace-title">{esc(run.name)}</span> · '
              f'{_count(run)} · {esc(run.device)} · {esc(run.cache)} caches'
              f' · torch {esc(", ".join(versions))}</div>'
              f'<p class="wt-note">Clocks: {esc(run.alignment.method)}.</p>{_from_logs(run, esc)}')
    endings = "".join(f'<li class="wt-flag">{esc(rank.name)}: {esc(rank.ending)}</li>'
                      for rank in run.ranks if rank.ending)
    endings = f'<ul class="wt-reasons">{endings}</ul>' if endings else ""
    parts = [header, endings, _divergence(result.divergence, esc), _findings(run, esc, result.facts),
             _table(result, esc, duration), _timeline(result, esc)]
    for rank, trace in run.present:
        body = fragment.render_body(trace, result.facts[rank], links,
                                    RenderOptions(parts=("findings", "counts", "tree", "artifacts"),
                                                  artifacts=("break", "recompile")))
        parts.append(f'<details class="wt-rank-detail"><summary>{esc(run.names[rank])}: findings, compiles, call tree, '
                     f'breaks and recompiles</summary>{body}</details>')
    return f'<div class="wt-trace wt-ranks">{"".join(parts)}</div>'


def _findings(run, esc, facts) -> str:  # noqa: ANN001 - merge.MergedRun, text.esc, {rank: TraceFacts}
    """The processes' findings, each said once with the processes that have it (all of them, or which)."""
    shared = shared_findings(run, facts)
    if not shared:
        return '<p class="wt-rank-agree">Findings: none on any process.</p>'
    items = "".join(
        f'<li class="wt-finding{" wt-finding-note" if item.finding.informational else ""}">'
        f'<span class="wt-finding-what">{esc(item.finding)}</span> '
        f'<span class="{"wt-muted" if item.everywhere else "wt-flag"}">on {esc(who(run, item))}</span>'
        + (f'<br><span class="wt-muted">fix: {esc(item.finding.fix)}</span>' if item.finding.fix else "") + "</li>"
        for item in shared)
    return f'<div class="wt-findings"><h3 class="wt-findings-title">Findings</h3><ol>{items}</ol></div>'


def _from_logs(run, esc) -> str:  # noqa: ANN001 - merge.MergedRun, text.esc
    """Ranks read from torch's TORCH_TRACE logs (tracers/torchlogs/): which torch wrote them, what logs lack."""
    logs = [trace.info.from_log for _, trace in run.present if trace.info.from_log]
    if not logs:
        return ""
    writers = ", ".join(sorted({str(log.get("written_by")) for log in logs}))
    lacks = "; ".join(logs[0].get("cannot_give", []))
    exports = "".join(f'<p class="wt-note wt-from-export"><code>{esc(log.get("file", "?"))}</code>: '
                      f'{esc(export_line(export))}</p>' for log in logs if (export := export_of(log)))
    return (f'<p class="wt-note wt-from-log">Read from torch\'s own TORCH_TRACE logs, written by {esc(writers)}. '
            f'A log does not hold: {esc(lacks)}.</p>{exports}')


def _count(run) -> str:  # noqa: ANN001 - merge.MergedRun
    ranks = f'{run.world_size} rank{"s" if run.world_size != 1 else ""}'
    if run.kind != "processes":
        return ranks
    processes = f'{len(run.ranks)} process{"es" if len(run.ranks) != 1 else ""}'
    return f"{processes} ({ranks})" if run.world_size else processes


def _divergence(divergence: Divergence, esc) -> str:  # noqa: ANN001
    if len(divergence.ranks) < 2:
        return '<p class="wt-note">Fewer than two ranks left a trace: nothing to compare.</p>' + _notes(divergence, esc)
    first = divergence.first
    if first is None:
        compared = "".join(f", {esc(what)}" for what in divergence.compared)
        return ('<p class="wt-rank-agree">No divergence: every rank compiled the same graphs with the same inputs, '
                f'guards, collectives and cache outcomes{compared}.</p>' + _notes(divergence, esc)
                + _estimates(divergence, esc))
    later = "".join(
        f'<li>{_where(d, esc)}{esc(d.aspect)}: {esc(d.words)} '
        f'<span class="wt-muted">at <code>{esc(d.line or "?")}</code></span>{_fold(d.detail, esc)}</li>'
        for d in divergence.differences[1:])
    later = f'<p>Then:</p><ul class="wt-reasons">{later}</ul>' if later else ""
    return (f'<div class="wt-rank-diverge"><p><strong>Ranks diverge</strong> — first at {_where(first, esc)}'
            f'{esc(first.aspect)}, at <code>{esc(first.line or "an unknown line")}</code>:</p>'
            f'<p class="wt-rank-first">{esc(first.words)}</p>{_fold(first.detail, esc)}'
            f'<p class="wt-note">{esc(first.why)}</p>{later}</div>' + _notes(divergence, esc)
            + _estimates(divergence, esc))


def _where(difference, esc) -> str:  # noqa: ANN001 - difference.Difference, text.esc
    if not difference.compile_id:
        return ""
    return f'compile <span class="wt-compile-id">{esc(difference.compile_id)}</span>, '


def _fold(lines: tuple[str, ...], esc) -> str:  # noqa: ANN001
    """The lines that differ, behind a fold (never the whole guard set or every input)."""
    if not lines:
        return ""
    items = "".join(f"<li><code>{esc(line)}</code></li>" for line in lines)
    return (f'<details class="wt-rank-lines"><summary>{len(lines)} line{"s" if len(lines) != 1 else ""} that '
            f'differ</summary><ul>{items}</ul></details>')


def _notes(divergence: Divergence, esc) -> str:  # noqa: ANN001
    return "".join(f'<p class="wt-flag">{esc(note)}</p>' for note in divergence.notes)


def _estimates(divergence: Divergence, esc) -> str:  # noqa: ANN001
    """Inductor's runtime estimate of each graph on every rank, and how far apart the ranks are."""
    if not divergence.estimates:
        return ""
    ranks = [rank for rank, _ in divergence.estimates[0].by_rank]
    head = "".join(f"<th>rank {rank}</th>" for rank in ranks)
    rows = "".join(
        f'<tr><th scope="row">{esc(e.compile_id)}</th>'
        + "".join(f"<td>{ns / 1e6:.3f} ms</td>" for _, ns in e.by_rank)
        + f"<td>{e.spread_ns / 1e6:.3f} ms</td></tr>" for e in divergence.estimates)
    return (f'<details class="wt-rank-estimates"><summary>Inductor\'s runtime estimates per graph</summary>'
            f'<div class="wt-rank-scroll"><table class="wt-compiles"><tr><th>graph</th>{head}<th>spread</th></tr>'
            f'{rows}</table></div></details>')


def _table(result: RankReport, esc, duration) -> str:  # noqa: ANN001
    if not result.rows:
        return '<p class="wt-flag">No rank left a trace.</p>'
    columns = result.columns()
    head = "".join(f"<th>{esc(column.label)}</th>" for column in columns)
    ended = "".join(f"<td>{esc(column.value('ended'))}</td>" for column in columns)
    body = [f'<tr><th scope="row">ended</th>{ended}</tr>']
    for label, field in COUNTS:
        cells = "".join(f"<td>{column.value(field)}</td>" for column in columns)
        body.append(f'<tr><th scope="row">{label}</th>{cells}</tr>')
    for stage in result.stages:
        slowest = result.slowest(stage)
        cells = "".join(_time_cell(column.times(stage), column.has(slowest), duration, esc) for column in columns)
        body.append(f'<tr><th scope="row">{esc(stage_title(stage))}</th>{cells}</tr>')
    grouped = (" A column of several ranks (they agree on every count) gives their shortest–longest time."
               if len(columns) < len(result.rows) else "")
    return (f'<div class="wt-rank-scroll"><table class="wt-compiles wt-rank-table"><tr><th></th>{head}</tr>'
            f'{"".join(body)}</table></div>'
            f'<p class="wt-note">Stage times count outermost calls; the slowest rank per stage is in bold.{grouped}</p>')


def _time_cell(times: tuple[int, int] | None, slowest: bool, duration, esc) -> str:  # noqa: ANN001
    """One column's time in a stage: a rank's, or a group's shortest–longest; bold where the slowest rank is."""
    if times is None:
        return "<td>—</td>"
    low, high = duration(times[0]), duration(times[1])
    return f'<td{" class=wt-rank-slowest" if slowest else ""}>{esc(high if low == high else f"{low}–{high}")}</td>'


def _timeline(result: RankReport, esc) -> str:  # noqa: ANN001
    """Every rank's outer compile steps on the shared clock: where one rank compiles while others wait."""
    run = result.run
    placed: list[tuple[int, Span, int]] = []  # rank, span, start on the shared axis
    for rank, trace in run.present:
        offset = run.alignment.offsets_ns.get(rank, 0)
        placed.extend((rank, span, span.start_ns + offset) for span in trace.spans if span.depth < BAND_ROWS)
    if not placed:
        return '<p class="wt-note">No rank compiled anything.</p>'
    origin = min(start for _, _, start in placed)
    end = max(start + span.duration_ns for _, span, start in placed)
    total = max(end - origin, 1)
    band = BAND_ROWS * (ROW + GAP) + 8
    bands = {rank: index for index, (rank, _) in enumerate(run.present)}
    shapes = []
    for rank, index in bands.items():
        shapes.append(f'<text class="wt-rank-label" x="2" y="{index * band + 9}">{esc(run.names[rank])}</text>')
    for rank, span, start in placed:
        x = (start - origin) / total * WIDTH
        width = max(span.duration_ns / total * WIDTH, 0.6)
        y = bands[rank] * band + 12 + span.depth * (ROW + GAP)
        title = f"{run.names[rank]}: {span.target} ({stage_title(span.stage)}) {duration(span.duration_ns)}"
        if span.compile_id:
            title += f", compile {span.compile_id}"
        shapes.append(f'<rect x="{x:.2f}" y="{y}" width="{width:.2f}" height="{ROW}" fill="{colour(span.stage)}">'
                      f'<title>{esc(title)}</title></rect>')
    first = result.divergence.first
    if first is not None:
        starts = [start for rank, span, start in placed if span.compile_id == first.compile_id]
        if starts:
            x = (min(starts) - origin) / total * WIDTH
            shapes.append(f'<line class="wt-mark wt-mark-recompile" x1="{x:.2f}" x2="{x:.2f}" y1="0" '
                          f'y2="{len(bands) * band}"><title>{esc(f"first divergence: compile {first.compile_id}, {first.aspect}")}'
                          f'</title></line>')
    height = len(bands) * band
    return (f'<div class="wt-trace-timeline"><svg class="wt-trace-svg" viewBox="0 0 {WIDTH} {height}" '
            f'preserveAspectRatio="none" width="100%" height="{height}" role="img" '
            f'aria-label="Compile steps of {len(bands)} ranks on one clock">{"".join(shapes)}</svg>'
            f'<div class="wt-trace-axis"><span>0</span><span>{esc(duration(total))}</span></div></div>')


def write_page(result: RankReport, merged_file: Path, page_dir: Path | None = None, site: str | None = None) -> Path:
    """``<merged stem>.html`` beside the merged trace (or in ``page_dir``): one self-contained file, no JavaScript.
    Its steps link to their chapters (``site``, as the single-rank page) and to torch's source lines."""
    _, page_module = _report_modules()
    page_dir = page_dir or merged_file.parent
    page = page_dir / f"{merged_file.stem}.html"
    links = links_for(result.run.present[0][1], merged_file, page_dir, site) if result.run.present else None
    download = Path(os.path.relpath(merged_file.resolve(), page_dir.resolve())).as_posix()
    title = f"{result.run.name}: {result.run.world_size} ranks"
    body = (f'{render_ranks(result, links)}<p><a href="{esc(download)}" download>merged trace JSON</a> '
            f'(one process per rank: open it in <a href="https://ui.perfetto.dev">Perfetto</a>)</p>')
    html = page_module.page_document(f"{title} — torch.compile across ranks", body, links)
    return write_text_atomic(page, html)  # a page is whole or absent, Ctrl-C or not
