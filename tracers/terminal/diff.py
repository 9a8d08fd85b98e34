"""Two traces compared, as terminal text: time per stage, counts, compiles, compile time by your code, speed, kernels."""

from __future__ import annotations

from tracers.analysis.code_diff import TOP, CodeDiff
from tracers.analysis.diff import TraceDiff
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.durations import duration
from tracers.vocabulary.printable import printable_value as one_line

from .speed_diff import render_runtime_diff
from .style import Style


def render_diff(result: TraceDiff, style: Style, names: tuple[str, str] = ("A", "B")) -> str:
    a, b = names
    # what comes from a trace (labels, names, targets, kernels) is one line each: a newline in it would make lines of
    # its own (style.finish keeps the layout's newlines, escaping the rest)
    lines = [style.bold("Diff"), f"  {a}: {one_line(result.a_label)}", f"  {b}: {one_line(result.b_label)}"]
    if result.renamed is not None:
        lines.append(style.dim(f"  {b}'s script is {one_line(result.renamed.b)}, {a}'s {one_line(result.renamed.a)}: "
                               f"{b}'s lines are matched with {a}'s by function and line"))
    lines += ["", style.bold("Findings")]
    changes = [change.sentence(a, b) for change in result.findings]
    lines += [f"  {one_line(said)}" for said in changes] or ["  the same findings in both"]
    lines += ["", style.bold("Stages") + style.dim(f"  (one run each: a stage's time also moves between runs of the "
                                                   f"same code; {_same_work(result, a, b)})")]
    lines.append(f"  {'stage':<32}{a:>12}{b:>12}   ratio")
    for row in result.stages:
        title = STAGE_BY_ID[row.stage].title if row.stage in STAGE_BY_ID else one_line(row.stage)
        a_text = duration(row.a_ns) if row.a_ns is not None else "—"
        b_text = duration(row.b_ns) if row.b_ns is not None else "—"
        if row.a_ns is None:
            note = style.yellow(f"only in {b}")
        elif row.b_ns is None:
            note = style.yellow(f"only in {a}")
        else:
            note = f"{row.b_ns / row.a_ns:.2f}×" if row.a_ns else ""
        lines.append(f"  {title:<32}{a_text:>12}{b_text:>12}   {note}")
    lines.append("")
    lines.append(f"  {'':<32}{a:>12}{b:>12}")
    for what, count_a, count_b in result.counts:
        marker = "" if count_a == count_b else style.yellow("  differs")
        lines.append(f"  {what:<32}{count_a:>12}{count_b:>12}{marker}")
    if result.compiles:
        lines.append("")
        lines.append("Compiles:")
        for row in result.compiles:
            marker = style.yellow("  differs") if row.differs else ""
            lines.append(f"  {one_line(row.compile_id):<10}{a}: {one_line(row.a.text) if row.a else '—'}{marker}")
            lines.append(f"  {'':<10}{b}: {one_line(row.b.text) if row.b else '—'}")
    if result.code is not None:
        lines.extend(render_code_diff(result.code, style, names))
    lines.extend(render_runtime_diff(result.runtime, style, names))
    for side, only in ((a, result.only_a), (b, result.only_b)):
        if only:
            lines.append("")
            lines.append(f"Ran only in {side}:")
            lines.extend(f"  {one_line(target)}" for target in only)
    if result.kernels_a or result.kernels_b:
        lines.append("")
        lines.append("Generated kernels:")
        lines.append(f"  {a}: {len(result.kernels_a)}  " + ", ".join(map(one_line, result.kernels_a[:6]))
                     + (" …" if len(result.kernels_a) > 6 else ""))
        lines.append(f"  {b}: {len(result.kernels_b)}  " + ", ".join(map(one_line, result.kernels_b[:6]))
                     + (" …" if len(result.kernels_b) > 6 else ""))
    return style.finish("\n".join(lines))  # input text made printable (style.py)


def _same_work(result: TraceDiff, a: str, b: str) -> str:
    """The runs' own speed difference, from the compiles that did the same work in both."""
    same = result.same_work
    if same is None:
        return "no compile did the same work in both, to say how much of it that is"
    spread = f", {same.low:.2f}–{same.high:.2f}×" if same.compiles > 1 else ""
    return (f"the {same.compiles} compile{'s' if same.compiles != 1 else ''} that did the same work in both took "
            f"{same.ratio:.2f}× as long in {b}{spread}: a stage near that ratio changed with the run, not the code")


def render_code_diff(result: CodeDiff, style: Style, names: tuple[str, str]) -> list[str]:
    """The diff's "Compile time by your code" lines."""
    if not result.rows and not result.lines:
        return []
    a, b = names
    lines = ["", "Compile time by your code (Dynamo's tracing, inclusive):",
             f"  {'function':<58}{a:>10}{b:>10}   calls {a}/{b}",
             f"  {'all tracing':<58}{duration(result.a_tracing_ns):>10}{duration(result.b_tracing_ns):>10}"]
    for row in result.rows[:TOP]:
        a_text = duration(row.a_ns) if row.a_ns is not None else "—"
        b_text = duration(row.b_ns) if row.b_ns is not None else "—"
        marker = style.yellow("  differs") if row.a_calls != row.b_calls else ""
        code = one_line(row.code)
        code = code if len(code) <= 58 else code[:57] + "…"
        lines.append(f"  {code:<58}{a_text:>10}{b_text:>10}   {row.a_calls}/{row.b_calls}{marker}")
    if len(result.rows) > TOP:
        lines.append(style.dim(f"  … {len(result.rows) - TOP} more functions"))
    if result.lines:
        lines.append("")
        lines.append("User lines whose kernels differ:")
        for side, comments in zip(names, result.from_comments):
            if comments:
                lines.append(style.dim(f"  ({side}: no codegen seen, read from the output code's comments, "
                                       "which name no C++ kernel)"))
        for row in result.lines[:TOP]:
            lines.append(f"  {one_line(row.line):<30}{a}: {', '.join(map(one_line, row.a_kernels)) or '—'}")
            lines.append(f"  {'':<30}{b}: {', '.join(map(one_line, row.b_kernels)) or '—'}")
    return lines
