"""The multi-rank HTML: divergence first, ranks side by side, one aligned timeline with a band per rank."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tracers.report.links import links_for
from tracers.report.options import Links, RenderOptions
from tracers.report.palette import colour, stage_title
from tracers.report.text import esc
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.events import Span
from tracers.vocabulary.durations import duration
from tracers.vocabulary.exported import export_line, export_of
from tracers.vocabulary.imports import import_failure

from .divergence import Divergence
from .endings import endings
from .findings import shared_findings, who
from .summary import COUNTS, RankReport

BAND_ROWS = 3  # nesting levels drawn per rank: the outer steps, enough to see who compiles when
ROW, GAP, WIDTH = 10, 2, 1000


class PageUnavailable(Exception):
    """The page needs Jinja2 (the `page` extra); one line says so."""


def _report_modules():  # noqa: ANN202 - the page's modules, imported only when a page is drawn
    try:
        from tracers.report import fragment, page, templating
    except ImportError as error:
        raise PageUnavailable(import_failure("the HTML page", error)) from None
    return fragment, page, templating


@dataclass(frozen=True)
class FromLogs:
    """Ranks read from torch's TORCH_TRACE logs (tracers/torchlogs/): which torch wrote them, what logs lack."""

    writers: str
    lacks: str
    exports: tuple[tuple[str, str], ...]  # a log's file and its torch.export part, in one line
    notes: tuple[str, ...] = ()  # what reading the logs noticed (torchlogs/notes.py), a note a line: folded


@dataclass(frozen=True)
class FindingItem:
    """One finding as the processes have it."""

    what: str
    informational: bool
    everywhere: bool
    who: str
    fix: str | None
    others_wait: str | None = None


@dataclass(frozen=True)
class Table:
    """The side-by-side table: a column per rank (or per group of ranks that agree), a row per count and stage."""

    labels: tuple[str, ...]
    rows: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...]  # label, and each cell's text and slowest mark
    grouped: bool  # some column holds several ranks


@dataclass(frozen=True)
class RanksView:
    """What templates/ranks.html shows of a merged run."""

    name: str
    count: str
    device: str
    cache: str
    versions: str
    clocks: str
    from_logs: FromLogs | None
    endings: tuple[tuple[str, str], ...]
    divergence: Divergence
    findings: tuple[FindingItem, ...]
    table: Table | None
    timeline: object  # Markup: the SVG, drawn here from escaped pieces
    details: tuple[tuple[str, object], ...]  # each process's name and its report body (Markup)


def render_ranks(result: RankReport, links: Links | None = None) -> str:
    """The multi-rank block (the site's directive and the standalone page share it)."""
    fragment, _, templating = _report_modules()
    links = links or Links()
    run = result.run
    details = tuple((run.names[rank], templating.safe(fragment.report_body(
        result.reports[rank], links, RenderOptions(parts=("findings", "counts", "tree", "artifacts"),
                                                    artifacts=("break", "recompile")))))
        for rank, _ in run.present)
    view = RanksView(
        name=run.name, count=_count(run), device=run.device, cache=run.cache,
        versions=", ".join(sorted({trace.info.torch_version for _, trace in run.present})),
        clocks=run.alignment.method, from_logs=_from_logs(run),
        endings=tuple((ending.who, ending.ending) for ending in endings(run)),
        divergence=result.divergence, findings=_findings(run, result), table=_table(result),
        timeline=templating.safe(_timeline(result, esc)), details=details)
    return templating.render("ranks.html", view=view)


def _findings(run, result: RankReport) -> tuple[FindingItem, ...]:  # noqa: ANN001 - merge.MergedRun
    """The processes' findings, each said once with the processes that have it (all of them, or which)."""
    return tuple(FindingItem(str(item.finding), item.finding.informational, item.everywhere, who(run, item),
                             item.finding.fix, item.others_wait)
                 for item in shared_findings(run, result.findings))


def _from_logs(run) -> FromLogs | None:  # noqa: ANN001 - merge.MergedRun
    logs = [trace.info.from_log for _, trace in run.present if trace.info.from_log]
    if not logs:
        return None
    # every rank's trace keeps the notes of the one reading that loaded them all: said once, in their order
    notes = tuple(dict.fromkeys(note for log in logs for note in log.get("reading_notes") or ()))
    return FromLogs(", ".join(sorted({str(log.get("written_by")) for log in logs})),
                    "; ".join(logs[0].get("cannot_give", [])),
                    tuple((log.get("file", "?"), export_line(export)) for log in logs if (export := export_of(log))),
                    notes)


def _count(run) -> str:  # noqa: ANN001 - merge.MergedRun
    ranks = f'{run.world_size} rank{"s" if run.world_size != 1 else ""}'
    if run.kind != "processes":
        return ranks
    processes = f'{len(run.ranks)} process{"es" if len(run.ranks) != 1 else ""}'
    return f"{processes} ({ranks})" if run.world_size else processes


def _table(result: RankReport) -> Table | None:
    if not result.rows:
        return None
    columns = result.columns()
    rows = [("ended", tuple((str(column.value("ended")), False) for column in columns))]
    rows += [(label, tuple((str(column.value(field)), False) for column in columns)) for label, field in COUNTS]
    for stage in result.stages:
        slowest = result.slowest(stage)
        rows.append((stage_title(stage), tuple(_time_cell(column.times(stage), column.has(slowest))
                                               for column in columns)))
    return Table(tuple(column.label for column in columns), tuple(rows), len(columns) < len(result.rows))


def _time_cell(times: tuple[int, int] | None, slowest: bool) -> tuple[str, bool]:
    """One column's time in a stage: a rank's, or a group's shortest–longest; bold where the slowest rank is."""
    if times is None:
        return "—", False
    low, high = duration(times[0]), duration(times[1])
    return (high if low == high else f"{low}–{high}"), slowest


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
    _, page_module, _ = _report_modules()
    page_dir = page_dir or merged_file.parent
    page = page_dir / f"{merged_file.stem}.html"
    links = links_for(result.run.present[0][1], merged_file, page_dir, site) if result.run.present else None
    download = Path(os.path.relpath(merged_file.resolve(), page_dir.resolve())).as_posix()
    title = f"{result.run.name}: {result.run.world_size} ranks"
    body = (f'{render_ranks(result, links)}<p><a href="{esc(download)}" download>merged trace JSON</a> '
            f'(one process per rank: open it in <a href="https://ui.perfetto.dev">Perfetto</a>)</p>')
    html = page_module.page_document(f"{title} — torch.compile across ranks", body, links)
    return write_text_atomic(page, html)  # a page is whole or absent, Ctrl-C or not
