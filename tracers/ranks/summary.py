"""The multi-rank summary: divergence first, then every rank side by side, the slowest rank per stage marked."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

from tracers.analysis.finding_type import Finding
from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts
from tracers.terminal.style import Style
from tracers.vocabulary.durations import duration
from tracers.vocabulary.printable import printable_value as one_line
from tracers.terminal.summary import written_lines
from tracers.tracefile.stages import STAGE_BY_ID, STAGE_ORDER

from .divergence import Divergence, compare
from .endings import endings
from .findings import compile_lines, findings_lines, names_text
from .merge import Marker, MergedRun
from .wording import GROUP_FROM, ranks_text

COUNTS = (("frame compiles", "compiles"), ("graphs", "graphs"), ("graph breaks", "graph_breaks"),
          ("recompiles", "recompiles"), ("cache hits", "cache_hits"), ("cache misses", "cache_misses"))


@dataclass(frozen=True)
class RankRow:
    """One rank's column of the side-by-side table."""

    rank: int
    ended: str
    compiles: int
    graphs: int
    graph_breaks: int
    recompiles: int
    cache_hits: int
    cache_misses: int
    stage_time_ns: dict[str, int]
    totals_fault: str | None  # the tracer's totals differ from torch's own counters on this rank
    name: str = ""  # rank N, or a process that is no rank (main process, process 4242)


@dataclass(frozen=True)
class Column:
    """One column of the side-by-side table: one rank, or ranks that agree on every count (their stage times
    said as a range)."""

    label: str
    rows: tuple[RankRow, ...]

    def value(self, field: str) -> object:
        return getattr(self.rows[0], field)

    def times(self, stage: str) -> tuple[int, int] | None:
        """The shortest and longest time the column's ranks spent in ``stage`` (None: none ran it)."""
        times = [row.stage_time_ns[stage] for row in self.rows if stage in row.stage_time_ns]
        return (min(times), max(times)) if times else None

    def has(self, rank: int | None) -> bool:
        return any(row.rank == rank for row in self.rows)


@dataclass(frozen=True)
class RankReport:
    """A merged run's summary: each process's report model (built once), its table rows and the divergence."""

    run: MergedRun
    rows: tuple[RankRow, ...]
    reports: dict[int, Report]
    divergence: Divergence

    @property
    def facts(self) -> dict[int, TraceFacts]:
        return {rank: report.facts for rank, report in self.reports.items()}

    @property
    def findings(self) -> MappingProxyType[int, tuple[Finding, ...]]:
        return MappingProxyType({rank: report.findings for rank, report in self.reports.items()})

    def slowest(self, stage: str) -> int | None:
        """The rank that spent longest in ``stage`` (only when at least two ranks ran it)."""
        times = [(row.stage_time_ns[stage], row.rank) for row in self.rows if stage in row.stage_time_ns]
        return max(times)[1] if len(times) > 1 else None

    def columns(self) -> list[Column]:
        """The table's columns: one per rank, or, from GROUP_FROM ranks on, one per group of ranks whose counts,
        ending and stages agree (``ranks 0–4, 6, 7`` beside ``rank 5``), in order of their first rank."""
        if len(self.rows) < GROUP_FROM:
            return [Column(row.name or f"rank {row.rank}", (row,)) for row in self.rows]
        groups: dict[tuple, list[RankRow]] = {}
        for row in self.rows:
            key = (row.ended, row.totals_fault, frozenset(row.stage_time_ns),
                   *(getattr(row, field) for _, field in COUNTS))
            groups.setdefault(key, []).append(row)
        columns = []
        for rows in groups.values():
            if len(rows) == 1:
                columns.append(Column(rows[0].name or f"rank {rows[0].rank}", tuple(rows)))
            elif all(not row.name or row.name == f"rank {row.rank}" for row in rows):
                columns.append(Column(ranks_text([row.rank for row in rows]), tuple(rows)))
            else:
                columns.append(Column(", ".join(row.name or f"rank {row.rank}" for row in rows), tuple(rows)))
        return columns

    @property
    def stages(self) -> list[str]:
        found = {stage for row in self.rows for stage in row.stage_time_ns}
        return sorted(found, key=lambda stage: STAGE_ORDER.get(stage, len(STAGE_ORDER)))


def report(run: MergedRun) -> RankReport:
    """Each process's trace analysed once into its report model, and what the summary and the page say of them."""
    reports = {rank: build_report(trace) for rank, trace in run.present}
    facts = {rank: rank_report.facts for rank, rank_report in reports.items()}
    rows = []
    for rank_trace in run.ranks:
        fact = facts.get(rank_trace.rank)
        if fact is None:
            continue
        totals = reports[rank_trace.rank].totals
        caches = list(fact.cache_counts.values())
        check = rank_trace.trace.info.totals_check or {}  # type: ignore[union-attr]
        rows.append(RankRow(
            rank=rank_trace.rank, ended=rank_trace.ending or "ok", compiles=totals.frame_compiles,
            graphs=totals.graphs, graph_breaks=totals.graph_breaks, recompiles=totals.recompiles,
            cache_hits=sum(counts.get("hit", 0) for counts in caches),
            cache_misses=sum(counts.get("miss", 0) for counts in caches),
            stage_time_ns=dict(fact.stage_time_ns),
            totals_fault="; ".join(check.get("mismatches") or []) or None, name=rank_trace.name,
        ))
    return RankReport(run, tuple(rows), reports, compare(run.rank_traces, facts))


def as_json(result: RankReport) -> dict[str, Any]:
    """The summary as data, kept in the merged trace's metadata."""
    differences = [{"compile_id": d.compile_id, "aspect": d.aspect, "line": d.line, "why": d.why, "said": d.words,
                    "detail": list(d.detail),
                    "groups": [{"ranks": list(ranks), "value": value} for ranks, value in d.groups]}
                   for d in result.divergence.differences]
    slowest = {stage: result.slowest(stage) for stage in result.stages}
    return {"divergence": differences, "ranks": [asdict(row) for row in result.rows], "slowest_rank": slowest}


def markers(result: RankReport) -> tuple[Marker, ...]:
    """The first divergence on the timeline: where its compile started, on the first rank that ran it."""
    first = result.divergence.first
    if first is None:
        return ()
    starts = [(span.start_ns + result.run.alignment.offsets_ns.get(rank, 0), rank, span.start_ns)
              for rank, trace in result.run.present for span in trace.spans if span.compile_id == first.compile_id]
    if not starts:
        return ()
    _, rank, ns = min(starts)
    return (Marker(rank, ns, f"first divergence: compile {first.compile_id}, {first.aspect}",
                   {"what": first.words, "ranks": first.ranks_text(), "line": first.line, "why": first.why}),)


def render(result: RankReport, style: Style, written: list[str] = ()) -> str:
    run = result.run
    # the name, device and cache come from file names and the traces' words: one line each, a newline shown escaped
    name, device, cache = (one_line(text) for text in (run.name, run.device, run.cache))
    if run.kind == "processes":
        ranks = f", {run.world_size} rank(s)" if run.world_size else ""
        head = style.bold("torch.compile across processes") + f" — {name}, {len(run.ranks)} process(es){ranks}"
    else:
        head = style.bold("torch.compile across ranks") + f" — {name}, {run.world_size} rank(s)"
    lines = [head + f", {device}, cache {cache}", style.dim(f"  clocks: {one_line(run.alignment.method)}")]
    for ending in endings(run):  # ranks that ended alike said once (a rank number far past the logs found)
        lines.append("  " + (style.red if ending.severe else style.yellow)(f"{one_line(ending.who)}: "
                                                                          f"{one_line(ending.ending)}"))
    lines.append("")
    if run.kind == "processes" and not run.world_size:
        lines.append(style.dim("Divergence: these processes are no ranks of one job; nothing to compare"))
    else:
        lines.extend(_divergence_lines(result.divergence, style))
    lines.append("")
    lines.extend(findings_lines(run, style, result.findings))
    lines.append("")
    lines.extend(_table_lines(result, style))
    compiles = compile_lines(run, style, result.facts)
    if compiles:
        lines += ["", *compiles]
    recompiles = [(rank, recompile) for rank, fact in result.facts.items() for recompile in fact.recompiles]
    if recompiles:
        lines.append("")
        lines.append(style.bold("Recompile reasons"))
        # In words, against the version each failed (torch lists every earlier version's); the same on several ranks
        # said once. torch's text is in the trace and on the page.
        said: dict[tuple[str, str], list[int]] = {}
        for rank, recompile in recompiles:
            cause = result.reports[rank].recompile_cause(recompile.compile_id, recompile.reasons)
            words = cause.sentence if cause else "?"
            said.setdefault((recompile.compile_id, words), []).append(rank)
        everyone = {rank for rank, _ in run.present}
        for (compile_id, words), ranks in said.items():
            where = "every process" if set(ranks) == everyone and len(ranks) > 1 else names_text(run, ranks)
            lines.append(f"  [{compile_id}] {words}  {style.dim('on ' + where)}")
    faults = [(row.rank, row.totals_fault) for row in result.rows if row.totals_fault]
    for rank, fault in faults:
        lines.append(style.red(f"  tracer fault on {run.names[rank]}: {fault} (please report it)"))
    lines.extend(written_lines(written, style))
    return style.finish("\n".join(lines))  # input text made printable (style.py)


def _divergence_lines(divergence: Divergence, style: Style) -> list[str]:
    if len(divergence.ranks) < 2:
        return [style.dim("Divergence: fewer than two ranks left a trace; nothing to compare"), *_notes(divergence, style)]
    first = divergence.first
    if first is None:
        compared = "".join(f", {what}" for what in divergence.compared)
        return [style.green(f"No divergence: {ranks_text(divergence.ranks)} compiled the same "
                            f"graphs with the same inputs, guards, collectives and cache outcomes{compared}"),
                *_notes(divergence, style)]
    where = f"compile {first.compile_id}, " if first.compile_id else ""
    lines = [style.red(style.bold(f"Ranks diverge ({len(divergence.differences)} difference"
                                  f"{'s' if len(divergence.differences) != 1 else ''}); first at {where}"
                                  f"{first.aspect}")),
             f"  {_clip(first.words, 160)}"]
    if first.line:
        lines.append(f"  at {first.line}")
    # a few of the lines that differ (the page has them all); never whole guard sets or every input
    rest = first.detail[1:] if first.detail and first.words.startswith(first.detail[0]) else first.detail
    lines += [f"    {_clip(line, 156)}" for line in rest[:_DETAIL_LINES]]
    if len(rest) > _DETAIL_LINES:
        lines.append(style.dim(f"    … {len(rest) - _DETAIL_LINES} more on the page"))
    lines.append(style.dim(f"  {first.why}"))
    for difference in divergence.differences[1:]:
        where = f"[{difference.compile_id}] " if difference.compile_id else ""
        lines.append(f"  then {where}{difference.aspect}: {_clip(difference.words)}")
    return lines + _notes(divergence, style)


def _notes(divergence: Divergence, style: Style) -> list[str]:
    return [style.yellow(f"  {_clip(note, 200)}") for note in divergence.notes]


_DETAIL_LINES = 3  # lines that differ, printed under the first difference


def _table_lines(result: RankReport, style: Style) -> list[str]:
    rows = result.rows
    if not rows:
        return [style.yellow("No rank left a trace." if result.run.kind == "ranks" else "No process left a trace.")]
    columns = result.columns()
    stage_values = {stage: _stage_values(result, columns, stage) for stage in result.stages}
    width = max(12, *(len(row.ended) + 2 for row in rows), *(len(column.label) + 2 for column in columns),
                *(len(value) + 2 for values in stage_values.values() for value in values))
    width = min(width, 28)
    header = f"  {'':<30}" + "".join(f"{_clip(column.label, width - 1):>{width}}" for column in columns)
    lines = [style.bold("Per process" if result.run.kind == "processes" else "Per rank"), header]

    def line(label: str, values: list[str]) -> str:
        return f"  {label:<30}" + "".join(f"{_clip(value, width - 1):>{width}}" for value in values)

    lines.append(line("ended", [str(column.value("ended")).split(":", 1)[0] for column in columns]))
    for label, field in COUNTS:
        lines.append(line(label, [str(column.value(field)) for column in columns]))
    lines.append("")
    grouped = "; a column of ranks: their shortest–longest" if len(columns) < len(rows) else ""
    lines.append(style.bold("Time per stage") + style.dim(f"  (outermost calls; * the slowest rank{grouped})"))
    for stage in result.stages:
        title = STAGE_BY_ID[stage].title if stage in STAGE_BY_ID else stage
        lines.append(line(title, stage_values[stage]))
    return lines


def _stage_values(result: RankReport, columns: list[Column], stage: str) -> list[str]:
    """Each column's time in ``stage``: one rank's time, or a group's shortest–longest; * marks the slowest rank's."""
    slowest = result.slowest(stage)
    values = []
    for column in columns:
        times = column.times(stage)
        mark = "*" if column.has(slowest) else " "
        if times is None:
            values.append("—")
        elif times[0] == times[1] or duration(times[0]) == duration(times[1]):
            values.append(duration(times[1]) + mark)
        else:
            values.append(f"{duration(times[0])}–{duration(times[1])}{mark}")
    return values


def _clip(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
