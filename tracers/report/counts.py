"""The counts block: compiles, graphs, graph breaks, recompiles and cache outcomes, with their reasons."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracers.analysis.guard_failures import GuardFailure, parse_failure
from tracers.analysis.trace_facts import Recompile, TraceFacts
from tracers.tracefile.events import RunInfo
from tracers.vocabulary.durations import duration

from .palette import stage_title
from .templating import render

MAX_REASONS = 8  # a page shows the first few; the artifacts and the trace file have them all


@dataclass(frozen=True)
class ReasonItem:
    """A graph break's or recompile's line; a recompile's torch text folded beneath (``raw``)."""

    text: str
    raw: str | None = None
    versions: int = 0  # the versions torch checked, each with its failure in ``raw``


@dataclass(frozen=True)
class CompileRow:
    compile_id: str
    cells: tuple  # the shown columns' values
    failed: str | None  # torch's failure text: its own row, folded, so the columns keep their width
    failed_first: str


@dataclass(frozen=True)
class CompilesView:
    columns: tuple[tuple[str, str], ...]  # (css class, heading) of each column something filled in
    rows: tuple[CompileRow, ...]


@dataclass(frozen=True)
class CountsView:
    cells: tuple[tuple[str, int, str], ...]  # (name, value, hover)
    notes: tuple[str, ...]
    compiles: CompilesView | None
    reasons: tuple[ReasonItem, ...]  # the first MAX_REASONS
    more: int  # reasons left out


def cache_totals(facts: TraceFacts) -> tuple[int, int]:
    hits = sum(counter["hit"] for counter in facts.cache_counts.values())
    misses = sum(counter["miss"] for counter in facts.cache_counts.values())
    return hits, misses


def render_counts(facts: TraceFacts, info: RunInfo,
                  cause_of: Callable[[str | None, list[str]], GuardFailure | None] | None = None) -> str:
    """The counts, caches, notes and reasons. ``cause_of``: each recompile's cause by its compile id and reasons (the
    report model's ``recompile_cause``); without it (the old call form) torch's first reason is read here."""
    if cause_of is None:
        def cause_of(compile_id: str | None, reasons: list[str]) -> GuardFailure | None:
            return parse_failure(reasons[0]) if reasons else None
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
    breaks = [ReasonItem(f"Graph break ({brk.compile_id or '?'}) at {brk.location}: {brk.reason}"
                         + (" (not resumable: the whole frame ran eagerly; torch does not count it)"
                            if brk.frame_skipped else ""))
              for brk in facts.graph_breaks]
    # Each recompile once, by what its call changed (torch lists its failure against every earlier version).
    reasons = breaks + [_recompile_item(rec, cause_of) for rec in facts.recompiles]
    view = CountsView(tuple(cells), tuple(notes), _compiles(facts), tuple(reasons[:MAX_REASONS]),
                      max(len(reasons) - MAX_REASONS, 0))
    return render("counts.html", view=view)


def _totals_check_notes(check: dict | None) -> list[str]:
    if not check or (not check.get("mismatches") and not check.get("skipped")):
        return []  # agreeing totals need no words on the page; the metadata says they were checked
    if check.get("skipped"):
        return [f"Totals not checked against torch's counters: {check['skipped']}."]
    return [f"Tracer fault: {mismatch} (please report it)." for mismatch in check["mismatches"]]


def _recompile_item(recompile: Recompile,
                    cause_of: Callable[[str | None, list[str]], GuardFailure | None]) -> ReasonItem:
    failure = cause_of(recompile.compile_id, recompile.reasons)
    if failure is None:
        return ReasonItem(f"Recompile {recompile.compile_id or '?'}: no reason recorded")
    return ReasonItem(f"Recompile {recompile.compile_id or '?'}: {failure.sentence}", "\n".join(recompile.reasons),
                      len(recompile.reasons))


def render_compiles(facts: TraceFacts) -> str:
    """One row per compile id: which code, called from where, what came out, the calls its compiled code served
    (the compiling one included) and how long it took (templates/compiles.html)."""
    table = _compiles(facts)
    return render("compiles.html", table=table) if table else ""


def _compiles(facts: TraceFacts) -> CompilesView | None:
    if not facts.compiles:
        return None
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
    columns = tuple((f'wt-col-{names[i].replace(" ", "-")}', names[i]) for i in shown)
    body = []
    for row in rows:
        text = failed.get(row[0])
        first = (text.strip().splitlines()[0] if text.strip() else "failed") if text is not None else ""
        body.append(CompileRow(row[0], tuple(row[i] for i in shown), text, first))
    return CompilesView(columns, tuple(body))
