"""A comparison as terminal text: stages, your functions, counts, findings, what changed in torch, generated code."""

from __future__ import annotations

from tracers.analysis.spread import Spread
from tracers.terminal.style import Style
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.durations import duration

from .model import MOVED_SHARE, Comparison, GraphCode, TimedRow

TOP = 10  # functions and graphs listed; the page has them all
TOP_ENTRIES = 5  # what-changed entries listed per stage


def stage_title(stage: str) -> str:
    return STAGE_BY_ID[stage].title if stage in STAGE_BY_ID else stage


def timing_text(value: Spread | None) -> str:
    return duration(value.median) if value is not None else "—"


def change_text(row: TimedRow, a: str, b: str) -> str:
    """``1.31×``, ``1.31× noise``, ``only under 2.14.1``: what the row's change is."""
    if row.a is None or row.b is None:
        return f"only under {a if row.b is None else b}"
    if row.ratio is None:
        return ""
    return f"{row.ratio:.2f}×" + (" noise" if row.noise else "")


def spread_note(comparison: Comparison) -> str:
    if comparison.repeat < 2:
        return ("One run under each release: the run-to-run spread was not measured, so no change is marked "
                "noise (--repeat 3 measures it).")
    return (f"{comparison.repeat} runs under each release: times are medians; \"noise\" marks a change no larger "
            "than the larger side's run-to-run spread (slowest minus fastest run).")


def graph_text(kernels: tuple[str, ...] | None, fused: int | None, extern: int) -> str:
    if kernels is None:
        return "no generated code"
    fusion = f"{fused} fused" if fused is not None else "fusion not seen: read from the output code"
    text = f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''} ({fusion})"
    return text + (f", {extern} extern call{'s' if extern != 1 else ''}" if extern else "")


def _graph_line(graph: GraphCode, a: str, b: str) -> str:
    return (f"  {graph.compile_id:<10}{a}: {graph_text(graph.a_kernels, graph.a_fused, graph.a_extern)}"
            f" · {b}: {graph_text(graph.b_kernels, graph.b_fused, graph.b_extern)}")


def render(comparison: Comparison, style: Style, written: list[str] = ()) -> str:  # type: ignore[assignment]
    a, b = comparison.a.release, comparison.b.release
    lines = [style.bold(f"{comparison.command} under torch {a} and torch {b}") +
             f" ({comparison.device}, {comparison.cache} caches)"]
    for side in (comparison.a, comparison.b):
        codes = ", ".join(map(str, side.exit_codes))
        failed = style.red("  the script failed") if any(side.exit_codes) else ""
        lines.append(f"  {side.release}: torch {side.torch_version} (git {side.torch_git[:12]}), exit {codes}{failed}")
    width = 34
    lines += ["", f"  {'stage':<{width}}{a:>12}{b:>12}   change"]
    for row in comparison.stages:
        change = change_text(row, a, b)
        if row.moved(a, b):
            change = style.yellow(change)
        lines.append(f"  {stage_title(row.key):<{width}}{timing_text(row.a):>12}{timing_text(row.b):>12}   {change}")
    lines.append(style.dim("  " + spread_note(comparison)))
    if comparison.code:
        lines += ["", "Compile time by your functions (Dynamo's tracing, with what it inlined):"]
        for row in (comparison.tracing, *comparison.code[:TOP]):
            code = row.key if len(row.key) <= width + 14 else row.key[:width + 13] + "…"
            lines.append(f"  {code:<{width + 14}}{timing_text(row.a):>12}{timing_text(row.b):>12}   "
                         f"{change_text(row, a, b)}")
        if len(comparison.code) > TOP:
            lines.append(style.dim(f"  … {len(comparison.code) - TOP} more functions on the page"))
    lines += ["", f"  {'':<{width}}{a:>12}{b:>12}"]
    for what, count_a, count_b in comparison.counts:
        marker = style.yellow("  differs") if count_a != count_b else ""
        lines.append(f"  {what:<{width}}{count_a:>12}{count_b:>12}{marker}")
    if comparison.varied:
        lines.append(style.yellow(f"  not the same in every run (the first run's shown): {', '.join(comparison.varied)}"))
    lines += ["", "Findings:"]
    lines += [f"  - {change.sentence(a, b)}" for change in comparison.findings] or \
        ["  the same under both releases"]
    lines += ["", f"What changed in torch between {a} and {b}, for the stages that moved:"]
    if comparison.changes_note:
        lines.append(style.dim(f"  ({comparison.changes_note})"))
    if not comparison.changes:
        lines.append(f"  no stage moved (same calls; every time change within the spread or under {MOVED_SHARE:.0%})"
                     if not comparison.changes_note else "  none to show")
    for stage in comparison.changes:
        lines.append(f"  {style.bold(stage_title(stage.stage))} ({stage.why}): {len(stage.entries)} changed, "
                     f"{stage.unchanged} the same")
        for entry in stage.entries[:TOP_ENTRIES]:
            name = entry.name if len(entry.name) <= 90 else entry.name[:89] + "…"
            lines.append(f"    {entry.status:<10}{entry.kind:<8} {name}")
        if len(stage.entries) > TOP_ENTRIES:
            lines.append(style.dim(f"    … {len(stage.entries) - TOP_ENTRIES} more on the page"))
    if comparison.graphs:
        differing = [graph for graph in comparison.graphs if graph.differs]
        lines += ["", f"Generated code per compiled graph ({len(differing)} of {len(comparison.graphs)} differ):"]
        lines += [_graph_line(graph, a, b) for graph in (differing or comparison.graphs)[:TOP]]
    if written:
        lines += [""] + [f"wrote {path}" for path in written]
    return "\n".join(lines)
