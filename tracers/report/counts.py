"""The counts block: compiles, graphs, graph breaks, recompiles and cache outcomes, with their reasons."""

from __future__ import annotations

from collections.abc import Mapping

from tracers.analysis.guard_failures import GuardFailure
from tracers.analysis.trace_facts import Recompile, TraceFacts
from tracers.tracefile.events import RunInfo
from tracers.vocabulary.durations import duration

from .palette import stage_title
from .text import esc

MAX_REASONS = 8  # a page shows the first few; the artifacts and the trace file have them all


def cache_totals(facts: TraceFacts) -> tuple[int, int]:
    hits = sum(counter["hit"] for counter in facts.cache_counts.values())
    misses = sum(counter["miss"] for counter in facts.cache_counts.values())
    return hits, misses


def render_counts(facts: TraceFacts, info: RunInfo, failures: Mapping[str, GuardFailure] | None = None) -> str:
    """The counts, caches, notes and reasons. ``failures``: each recompile's newest guard failure, read (the
    report model's); without it (the old call form) they are read here."""
    if failures is None:
        from tracers.analysis.guard_failures import parse_failure  # the old call form only

        failures = {rec.reasons[0]: parse_failure(rec.reasons[0]) for rec in facts.recompiles if rec.reasons}
    hits, misses = cache_totals(facts)
    cache_detail = "; ".join(f"{cache}: {counter['hit']} hit, {counter['miss']} miss"
                             + (f", {counter['bypass']} bypass" if counter["bypass"] else "")
                             for cache, counter in facts.cache_counts.items())
    cells = [
        ("compiles", len(facts.compiles), "frame compiles (compile ids)"),
        ("graphs", facts.graph_count, "FX graphs Dynamo produced"),
        ("graph breaks", facts.totals().graph_breaks, "places Dynamo stopped the graph and resumed in Python"),
        ("recompiles", len(facts.recompiles), "compiles caused by failed guards"),
        ("cache hits", hits, cache_detail),
        ("cache misses", misses, cache_detail),
    ]
    items = "".join(f'<li data-count="{esc(name)}" title="{esc(hint)}"><strong>{value}</strong> {esc(name)}</li>'
                    for name, value, hint in cells)
    notes = []
    if info.resets:
        notes.append(f"The program reset Dynamo {info.resets} time{'s' if info.resets != 1 else ''} "
                     "(torch._dynamo.reset); torch numbers compiles from 0/0 again after each, so compiles "
                     "after the N-th reset read rN:0/0.")
    notes.extend(_totals_check_notes(info.totals_check))
    if info.cache_mode == "cold" and not hits + misses:
        notes.append("Cold run: torch's compile caches were off, so every stage ran.")
    for compile_facts in facts.compiles:
        if compile_facts.skipped:
            skipped = ", ".join(stage_title(stage) for stage in compile_facts.skipped)
            notes.append(f"Compile {compile_facts.compile_id}: a cache hit skipped {skipped}.")
    breaks = [f"Graph break ({brk.compile_id or '?'}) at {brk.location}: {brk.reason}"
              + (" (not resumable: the whole frame ran eagerly; torch does not count it)" if brk.frame_skipped else "")
              for brk in facts.graph_breaks]
    # Each recompile once, against the version it failed (torch lists every earlier version's failure again).
    items_html = [f"<li>{esc(reason)}</li>" for reason in breaks] + [_recompile_item(rec, failures) for rec in facts.recompiles]
    shown = "".join(items_html[:MAX_REASONS])
    if len(items_html) > MAX_REASONS:
        shown += f'<li class="wt-muted">and {len(items_html) - MAX_REASONS} more (see the artifacts)</li>'
    return (f'<div class="wt-trace-counts"><ul class="wt-count-list">{items}</ul>'
            + "".join(f'<p class="wt-note">{esc(note)}</p>' for note in notes)
            + render_compiles(facts) + (f'<ul class="wt-reasons">{shown}</ul>' if shown else "") + "</div>")


def _totals_check_notes(check: dict | None) -> list[str]:
    if not check or (not check.get("mismatches") and not check.get("skipped")):
        return []  # agreeing totals need no words on the page; the metadata says they were checked
    if check.get("skipped"):
        return [f"Totals not checked against torch's counters: {check['skipped']}."]
    return [f"Tracer fault: {mismatch} (please report it)." for mismatch in check["mismatches"]]


def _recompile_item(recompile: Recompile, failures: Mapping[str, GuardFailure]) -> str:
    if not recompile.reasons:
        return f"<li>Recompile {esc(recompile.compile_id or '?')}: no reason recorded</li>"
    failure = failures[recompile.reasons[0]]
    return (f"<li>Recompile {esc(recompile.compile_id or '?')}: {esc(failure.sentence)}"
            f'<details class="wt-finding-raw"><summary>as torch logged it ({len(recompile.reasons)} version'
            f'{"s" if len(recompile.reasons) != 1 else ""} checked)</summary>'
            f"<pre>{esc(chr(10).join(recompile.reasons))}</pre></details></li>")


def render_compiles(facts: TraceFacts) -> str:
    """One row per compile id: which code, called from where, what came out, the calls its compiled code served
    (the compiling one included) and how long it took."""
    if not facts.compiles:
        return ""
    names = ("compile", "code", "called from", "graphs", "ops", "guards", "calls served", "time", "caches")
    rows = []
    failed: dict[str, str] = {}
    for compile_facts in facts.compiles:
        outcome = [f"{event.cache} cache {event.outcome}" for event in compile_facts.cache]
        if compile_facts.fail_reason:
            outcome.append("failed (below)")
            failed[compile_facts.compile_id] = compile_facts.fail_reason
        rows.append((compile_facts.compile_id, compile_facts.frame or "", compile_facts.user_frame or "",
                     compile_facts.graphs, "" if compile_facts.op_count is None else compile_facts.op_count,
                     "" if compile_facts.guard_count is None else compile_facts.guard_count,
                     "" if compile_facts.calls is None else compile_facts.calls,
                     duration(compile_facts.time_ns), "; ".join(outcome)))
    # A column nothing filled in (a cold run has no cache outcomes) only takes room.
    shown = [index for index in range(len(names)) if any(row[index] != "" for row in rows)]
    column = [f'wt-col-{names[i].replace(" ", "-")}' for i in shown]
    head = "".join(f'<th class="{css}">{names[i]}</th>' for css, i in zip(column, shown))
    body = []
    for row in rows:
        body.append(f'<tr data-compile="{esc(row[0])}">'
                    + "".join(f'<td class="{css}">{esc(row[i])}</td>' for css, i in zip(column, shown)) + "</tr>")
        if row[0] in failed:  # torch's failure text is long: its own row, folded, so the columns keep their width
            first = failed[row[0]].strip().splitlines()[0] if failed[row[0]].strip() else "failed"
            body.append(f'<tr class="wt-compile-failed"><td></td><td colspan="{len(shown) - 1}"><details><summary>'
                        f'failed: {esc(first)}</summary><pre>{esc(failed[row[0]])}</pre></details></td></tr>')
    return f'<table class="wt-compiles"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
