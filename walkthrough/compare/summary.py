"""A comparison as terminal text: stages, your functions, counts, findings, what changed in torch, generated code."""

from __future__ import annotations

from tracers.analysis.spread import Spread
from tracers.terminal.style import Style
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.durations import duration

from .model import MOVED_SHARE, Comparison, GraphCode, TimedRow
from .said import is_change, sentence

# How the two stage tables are labelled, as the trace summary labels its times (inclusive: with what a stage calls).
INCLUSIVE = "inclusive: each stage's outermost calls, with the stages they call inside"
EXCLUSIVE = "exclusive: each stage's own time, the stages it calls left out; these add up to the traced time"

TOP = 10  # functions and graphs listed; the page has them all
TOP_ENTRIES = 5  # what-changed entries listed per stage


def stage_title(stage: str) -> str:
    return STAGE_BY_ID[stage].title if stage in STAGE_BY_ID else stage


def timing_text(value: Spread | None) -> str:
    return duration(value.median) if value is not None else "—"


def change_text(row: TimedRow, a: str, b: str) -> str:
    """``1.31×``, ``1.31× within the spread``, ``only under 2.14.1``: what the row's change is."""
    if row.a is None or row.b is None:
        return f"only under {a if row.b is None else b}"
    if row.ratio is None:
        return ""
    return f"{row.ratio:.2f}×" + (" within the spread" if row.noise else "")


def spread_note(comparison: Comparison) -> str:
    if comparison.repeat < 2:
        return ("One run under each release: the run-to-run spread was not measured, so no change can be said to be "
                "within it (--repeat 3 measures it).")
    return (f"{comparison.repeat} runs under each release: times are medians (each run's on the page); \"within the "
            "spread\" marks a change no larger than the larger side's run-to-run spread (slowest minus fastest run), "
            "which is no change.")


def graph_text(kernels: tuple[str, ...] | None, fused: int | None, extern: int) -> str:
    if kernels is None:
        return "no generated code"
    fusion = f"{fused} fused" if fused is not None else "fusion not seen: read from the output code"
    text = f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''} ({fusion})"
    return text + (f", {extern} extern call{'s' if extern != 1 else ''}" if extern else "")


def _graph_line(graph: GraphCode, a: str, b: str) -> str:
    return (f"  {graph.compile_id:<10}{a}: {graph_text(graph.a_kernels, graph.a_fused, graph.a_extern)}"
            f" · {b}: {graph_text(graph.b_kernels, graph.b_fused, graph.b_extern)}")


def cause_lines(comparison: Comparison) -> tuple[list[str], list[str], list[str]]:
    """The causes in words: (changes, within the spread, the same), each said once."""
    a, b = comparison.a.release, comparison.b.release
    changes = [sentence(change, a, b) for change in comparison.causes if is_change(change)]
    spread = [sentence(change, a, b) for change in comparison.causes if change.change == "varies"]
    same = [sentence(change, a, b) for change in comparison.causes if change.change == "same"]
    return changes, spread, same


def side_line(side) -> str:  # noqa: ANN001 - model.ReleaseSide
    build = f", {side.build} build" if side.build else ""
    return f"torch {side.torch_version}{build} (git {side.torch_git[:12]})"


def _stage_table(rows: tuple[TimedRow, ...], label: str, comparison: Comparison, style: Style) -> list[str]:
    a, b = comparison.a.release, comparison.b.release
    width = 34
    lines = ["", f"  {'stage':<{width}}{a:>12}{b:>12}   change", style.dim(f"  ({label})")]
    for row in rows:
        change = change_text(row, a, b)
        if row.moved(a, b):
            change = style.yellow(change)
        lines.append(f"  {stage_title(row.key):<{width}}{timing_text(row.a):>12}{timing_text(row.b):>12}   {change}")
    return lines


def render(comparison: Comparison, style: Style, written: list[str] = ()) -> str:  # type: ignore[assignment]
    a, b = comparison.a.release, comparison.b.release
    lines = [style.bold(f"{comparison.command} under torch {a} and torch {b}") +
             f" ({comparison.device}, {comparison.cache} caches)"]
    for side in (comparison.a, comparison.b):
        codes = ", ".join(map(str, side.exit_codes))
        failed = style.red("  the script failed") if any(side.exit_codes) else ""
        lines.append(f"  {side.release}: {side_line(side)}, exit {codes}{failed}")
    if comparison.build_note:
        lines.append(style.yellow(f"  {comparison.build_note}"))
    # the verdict first: what changed for this script, then the counts and the times behind it
    changes, spread, same = cause_lines(comparison)
    lines += ["Findings that changed (causes matched by what they are, over every run; a moved line is no change):"]
    lines += [f"  - {text}" for text in changes] or ["  none: every cause is the same under both releases"
                                                    if not spread else "  none beyond the run-to-run spread"]
    if spread:
        lines += ["  Within the run-to-run spread (not changes):"] + [f"  - {text}" for text in spread]
    if same:
        lines += [style.dim(f"  The same under both releases: {len(same)}")] + [style.dim(f"  - {text}") for text in same]
    lines.append("")
    width = 34
    lines += _stage_table(comparison.stages, INCLUSIVE, comparison, style)
    if comparison.own_stages:
        lines += _stage_table(comparison.own_stages, EXCLUSIVE, comparison, style)
    lines.append(style.dim("  " + spread_note(comparison)))
    if comparison.dominant:
        lines.append("  " + comparison.dominant)
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
