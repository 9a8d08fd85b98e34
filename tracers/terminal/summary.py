"""The terminal summary of a trace: stage tree, compiles, breaks, recompiles, caches and gaps."""

from __future__ import annotations

from collections.abc import Iterator

from tracers.tracefile.events import Trace, rank_of
from tracers.tracefile.stages import STAGE_BY_ID

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts, TreeNode
from tracers.vocabulary.durations import duration
from tracers.vocabulary.exported import export_line, export_of, has_problems, no_problems_in_compiles, troubles

from . import by_code, speed
from .findings import PageUrl, report_findings, render_recap
from .style import Style, style_for

__all__ = ["Style", "render", "render_report", "style_for", "written_lines"]

_WIDTH = 100
_TREE_LINES = 30  # a longer stage tree is cut to its outer levels unless asked for (--tree); the page has it all
_TREE_DEPTH = 4


# Rows of a table the terminal shows before it says how many more there are: a clean log of thousands of compiles
# would scroll its verdict off the screen. The page and the trace keep every row.
_ROWS = 40
_SCREEN = 40  # lines a terminal shows at once: past them, the verdict said first is said again last


def _more(count: int, what: str, style: Style) -> list[str]:
    """The line that stands for the rows past ``_ROWS``; none when all were shown."""
    return [style.dim(f"  … {count - _ROWS} more {what}: the page and the trace list them all")] if count > _ROWS else []


def _walk(nodes: list[TreeNode]) -> Iterator[TreeNode]:
    for node in nodes:
        yield node
        yield from _walk(node.children)


def _tree_lines(nodes: list[TreeNode], style: Style, prefix: str = "", root: bool = True,
                depth: int | None = None) -> Iterator[str]:
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        connector = "" if root else ("└─ " if last else "├─ ")
        notes = []
        if node.errors:
            notes.append(style.red(f"{node.errors} raised"))
        if node.unfinished:
            notes.append(style.yellow("unfinished"))
        left = f"{prefix}{connector}{node.label}"
        line = f"  {left:<58}{duration(node.total_ns):>10} {node.calls:>4}×  {style.dim(f'{node.stage:<10}')}"
        yield line + ("  " + "  ".join(notes) if notes else "")
        child_prefix = prefix if root else prefix + ("   " if last else "│  ")
        if depth is None or depth > 1:
            yield from _tree_lines(node.children, style, child_prefix, root=False,
                                   depth=None if depth is None else depth - 1)


def render(trace: Trace, facts: TraceFacts, style: Style, written: list[str] | None = None,
           elsewhere: str | None = None, page_url: PageUrl | None = None, full_tree: bool = False) -> str:
    """The old call form of :func:`render_report` (analyses the trace itself, from ``facts``)."""
    return render_report(build_report(trace, facts), style, written, elsewhere, page_url, full_tree)


def render_report(report: Report, style: Style, written: list[str] | None = None, elsewhere: str | None = None,
                  page_url: PageUrl | None = None, full_tree: bool = False) -> str:
    """``elsewhere``: what the run's other processes compiled, when it has some (this one may have compiled nothing);
    ``page_url``: where the walkthrough's chapters are, for the findings' links."""
    trace, facts = report.trace, report.facts
    info = trace.info
    lines: list[str] = []
    status = {"ok": style.green("ok"), "exit": style.yellow(f"exit {info.exit_code}"),
              "error": style.red("script raised"), "interrupted": style.yellow("interrupted"),
              "terminated": style.yellow("terminated")}.get(info.status, info.status)
    failures = report.failed  # the script may have gone on (suppress_errors), the compile did not
    export = export_of(info.from_log)  # a torch.export log's part, said in one line and not analysed
    if has_problems(export):  # a finished export with a problem is not "ok": the head says what the line below does
        failures = ", ".join(part for part in (failures, *troubles(export)) if part)
    if failures:
        status = style.red(failures) if info.status == "ok" else f"{status}, {style.red(failures)}"
    title = "torch.export log" if export and not report.compiled else "torch.compile trace"
    lines.append(style.bold(title) + f" — torch {info.torch_version}, {info.device}"
                 f" ({info.device_name}), cache {info.cache_mode} — {status}")
    if info.error:
        lines.append(f"  {style.red(info.error)}")
    lines.extend(f"  {said}" for said in report.compiled_by)  # a library compiled for the user: said first
    if info.from_log:  # read from torch's TORCH_TRACE log (tracers/torchlogs/): say what it cannot give
        rank = rank_of(info)  # one rank's log given alone: which rank it is (its name's, else its records')
        lines.append(style.dim(f"  read from TORCH_TRACE log {info.from_log.get('file')}"
                               + (f" (rank {rank})" if rank is not None else "") + ", written by "
                               f"{info.from_log.get('written_by')}; not in a log: "
                               + ", ".join(item.split(" (", 1)[0] for item in info.from_log.get("cannot_give", []))))

    compiled = report.compiled
    if export:
        lines.append(style.bold("  " + export_line(export)))
    if compiled or not export:
        lines.append("")
    # A log without timed regions still lists compiles (from their records): findings about them, not "nothing".
    found = report.findings if compiled else ()
    if compiled:
        # the headline speaks for the compiles only where the log's export part has problems of its own
        lines.extend(no_problems_in_compiles(line, export) if index == 1 else line for index, line in
                     enumerate(report_findings(report, style.bold, style.dim, page_url, _WIDTH)))
        if trace.spans:  # the compiles' table opens with its own blank line
            lines.append("")
    if not compiled and not export:
        lines.append(f"  Nothing was compiled in this process; {elsewhere}" if elsewhere else
                     "  Nothing was compiled: the script never reached torch.compile's pipeline.")
    elif trace.spans:
        tree = list(_tree_lines(facts.roots, style))
        shown = tree if full_tree or len(tree) <= _TREE_LINES else list(_tree_lines(facts.roots, style, depth=_TREE_DEPTH))
        raised = any(node.errors for node in _walk(facts.roots))
        lines.append(style.bold("Stage tree") + style.dim(
            "  (total time, calls, stage" + ("; raised: calls that ended in an exception, e.g. Dynamo's Unsupported "
                                             "at a graph break, caught inside torch" if raised else "") + ")"))
        lines.extend(shown)
        if len(shown) < len(tree):
            lines.append(style.dim(f"  … {len(tree) - len(shown)} deeper lines: --tree prints them all; the page "
                                   "folds them"))
        lines.append("")
        lines.append(style.bold("Time per stage") + style.dim("  (outermost calls only)"))
        for stage_id, ns in facts.stage_time_ns.items():
            title = STAGE_BY_ID[stage_id].title if stage_id in STAGE_BY_ID else stage_id
            lines.append(f"  {title:<32}{duration(ns):>10} {facts.stage_calls[stage_id]:>5}×")

    if facts.compiles:
        lines.append("")
        resets = f"; {info.resets} Dynamo reset{'s' if info.resets != 1 else ''}: rN: marks compiles after the N-th" \
            if info.resets else ""
        lines.append(style.bold("Compiles") + style.dim(f"  (one per frame compile id{resets})"))
        id_width = max(6, *(len(compile.compile_id) for compile in facts.compiles))
        indent = " " * (id_width + 4)
        caller = None
        for compile in facts.compiles[:_ROWS]:
            parts = [f"{compile.compile_id:<{id_width}}", f"{compile.frame or '?':<40}"]
            parts.append(f"{compile.graphs} graph{'s' if compile.graphs != 1 else ''}")
            if compile.op_count is not None:
                parts.append(f"{compile.op_count} ops")
            if compile.guard_count is not None:
                parts.append(f"{compile.guard_count} guards")
            if compile.calls is not None:
                parts.append(f"{compile.calls} call{'s' if compile.calls != 1 else ''}")
            hits = [f"{event.cache} {event.outcome}" for event in compile.cache]
            if hits:
                parts.append(", ".join(hits))
            lines.append("  " + "  ".join(parts))
            if compile.user_frame and compile.user_frame != caller:  # the row above's caller is not said again
                lines.append(style.dim(f"{indent}called from {compile.user_frame}"))
            caller = compile.user_frame
            if compile.skipped:
                lines.append(style.dim(f"{indent}skipped thanks to the cache: {', '.join(compile.skipped)}"))
        lines.extend(_more(len(facts.compiles), "compiles", style))

    lines.extend(by_code.section(report, style, _WIDTH))
    lines.extend(speed.section(report, style, _WIDTH))  # --vs-eager / --profile

    if compiled or not export:  # an export log's counts of torch.compile's graphs would all be 0, and say nothing
        lines.append("")
        lines.append(f"{style.bold('Graphs')} {facts.graph_count}   {style.bold('Graph breaks')} "
                     f"{_breaks_said(facts, report.totals.graph_breaks)}   {style.bold('Recompiles')} "
                     f"{len(facts.recompiles)}   {style.bold('Cache')} " + _cache_line(facts))
    for graph_break in facts.graph_breaks[:_ROWS]:
        skipped = " (not resumable: the whole frame ran eagerly)" if graph_break.frame_skipped else ""
        place = report.break_places[graph_break.location]
        where = place.short if place else graph_break.location
        lines.append(f"  break  [{graph_break.compile_id}] {where}: {_clip(graph_break.reason + skipped)}")
    lines.extend(_more(len(facts.graph_breaks), "graph breaks", style))
    for recompile in facts.recompiles[:_ROWS]:
        cause = report.recompile_cause(recompile.compile_id, recompile.reasons)
        said = cause.sentence if cause else "?"
        lines.append(f"  recompile [{recompile.compile_id}] {_clip(said)}")
    lines.extend(_more(len(facts.recompiles), "recompiles", style))

    lines.extend(_totals_check_lines(info.totals_check, style))

    tuned = [artifact for artifact in trace.artifacts if artifact.name == "autotune_results"]
    if tuned:
        lines.append("")
        lines.append(style.bold("Autotuning") + style.dim("  (fastest candidate first)"))
        for artifact in tuned:
            lines.append(f"  [{artifact.compile_id or '?'}] {_autotune_line(artifact.metadata)}")

    skips = [artifact for artifact in trace.artifacts if artifact.name == "cudagraph_skip"]
    if skips:
        lines.append("")
        lines.append(style.bold("CUDA graphs skipped") + style.dim("  (these graphs run without them)"))
        for artifact in skips:
            lines.append(f"  {style.yellow(_clip(artifact.metadata.get('reason', '?')))}")

    if info.targets_missing:
        lines.append("")
        lines.append(style.yellow(f"Targets this torch lacks ({len(info.targets_missing)}):"))
        for name, why in sorted(info.targets_missing.items()):
            lines.append(f"  {name}: {why}")
    for warning in info.warnings:
        lines.append(style.yellow(f"warning: {warning}"))
    recap = render_recap(found, style.bold, _WIDTH)
    if not recap and compiled and len(lines) > _SCREEN:  # a clean verdict said first has scrolled away: said again
        recap = [style.bold("Findings, in short"), "  " + no_problems_in_compiles(report.headline, export).strip()]
    if recap:
        lines += ["", *recap]
    lines.extend(written_lines(written, style))
    return style.finish("\n".join(lines))  # input text made printable (style.py)


def written_lines(written: list[str] | None, style: Style) -> list[str]:
    """Where the files went, each with how to open it."""
    lines = [""] if written else []
    for path in written or ():
        hint = "open it in https://ui.perfetto.dev" if path.endswith(".json") else "open it in a browser"
        lines.append(f"Written {path}  {style.dim(f'({hint})')}")
    return lines


def _breaks_said(facts: TraceFacts, counted: int) -> str:
    """The breaks listed below, and torch's count beside them where it differs: torch's graph_break count leaves out
    a break after which Dynamo gives the whole frame up (it runs eager: no graph to break)."""
    rows = len(facts.graph_breaks)
    if rows == counted:
        return str(rows)
    skipped = sum(1 for graph_break in facts.graph_breaks if graph_break.frame_skipped)
    why = f": its count leaves out the {skipped} that sent a whole frame to eager" if rows - counted == skipped else ""
    return f"{rows} (torch counts {counted}{why})"


def _totals_check_lines(check: dict | None, style: Style) -> list[str]:
    """Whether the totals above agree with torch's own counters; a difference is the tracer's fault."""
    if not check:
        return []
    if check.get("skipped"):
        return [style.dim(f"  totals not checked against torch's counters: {check['skipped']}")]
    if not check.get("mismatches"):
        return [style.dim("  totals agree with torch's own counters")]
    return [style.red(f"  tracer fault: {mismatch} (please report it)") for mismatch in check["mismatches"]]


def _cache_line(facts: TraceFacts) -> str:
    parts = []
    for cache, counts in facts.cache_counts.items():
        if counts:
            parts.append(f"{cache} " + " ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())))
    return "; ".join(parts) if parts else "not consulted"


def _autotune_line(metadata: dict) -> str:
    choices = metadata.get("choices") or []
    timed = [f"{choice['name']} {duration(choice['ms'] * 1e6)}" for choice in choices[:3] if choice.get("ms") is not None]
    more = f" (+{len(choices) - 3} more)" if len(choices) > 3 else ""
    return _clip(f"{metadata.get('op', '?')}({', '.join(metadata.get('inputs', []))}): " + ", ".join(timed) + more)


def _clip(text: str, width: int = _WIDTH - 20) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
