"""Findings: a trace's root causes (nothing compiled, breaks, recompiles, limits, thrown-away work, cache misses),
one per cause, at the user's line, costed so that no compile is counted twice."""

from __future__ import annotations

import dataclasses

from tracers.tracefile.events import HINT_NAMES, Trace
from tracers.vocabulary.durations import duration_s

from .compile_arguments import ignored_arguments
from .set_up import claim_set_up, with_set_up
from .shared_code import shared_code
from .breaks import claim_by_products, group_breaks, merge_stack_recompiles, resume_firsts
from .finding_type import BREAKS, CACHES, DISTRIBUTED, LIMIT, RECOMPILES, RESTARTS, SHAPES, Explained, Finding, Ledger
from .failures import compile_failures
from .frames import package_of
from .guard_failures import GuardFailure, cause_of, parse_failure, varied_by
from .hint_checks import checked_hints
from .ignored_hooks import ignored_hooks
from .uncompiled_methods import uncompiled_methods
from .recompiles import named_failures, recompile_findings
from .run_evidence import RunEvidence, gather
from .run_time_facts import cudagraph_findings
from .speed_findings import RUNTIME_KINDS, speed_findings
from .trace_facts import TraceFacts, analyze
from .one_time import one_time
from .waste import cache_misses, ddp_splits, dominant_stage, nothing_compiled, one_time_setup, thrown_away

__all__ = ["BREAKS", "CACHES", "DISTRIBUTED", "LIMIT", "RECOMPILES", "RESTARTS", "SHAPES", "Explained", "Finding",
           "compile_seconds", "findings", "headline"]


def findings(trace: Trace, facts: TraceFacts | None = None) -> list[Finding]:
    """The trace's findings: nothing compiled first, then problems by cost, then what is worth knowing."""
    facts = facts if facts is not None else analyze(trace)
    compiles = {compile_facts.compile_id: compile_facts for compile_facts in facts.compiles}
    setup = one_time(trace)
    ledger = Ledger(compiles, setup)
    failures = _failures(facts)
    groups = group_breaks(trace, compiles)
    merged = merge_stack_recompiles(groups, failures, compiles)
    # Whole compiles first, to the cause of their existence (a recompile; the code after a break), then the waste
    # inside compiles no finding explains yet (a restart, a compile that produced no graph).
    evidence = gather(trace, named_failures(trace, failures))
    merged |= claim_by_products(groups, evidence, trace, compiles)
    merged |= claim_set_up(groups, evidence, trace, compiles)
    shared, firsts = shared_code(trace, evidence)  # another compiled object's first version: no changed value
    merged |= firsts
    found = recompile_findings(trace, facts, compiles, evidence.failures, merged, ledger, evidence)
    resumed = resume_firsts(compiles)
    for group in groups:
        group.claim_created(resumed, ledger)
    for group in groups:
        group.claim_waste(compiles, ledger)
        group.claim_nested(trace, compiles, ledger)
    compiled = frozenset(facts.frame.split(" (", 1)[0] for facts in compiles.values() if facts.frame and facts.graphs)
    breaks = checked_hints([with_set_up(group.finding(trace, compiles, evidence), group, ledger, compiles) for group in groups
                            if group.set_up_of is None], compiled)
    found += breaks + compile_failures(trace, facts, ledger) + thrown_away(compiles, ledger) + \
        cache_misses(trace, compiles, ledger) + cudagraph_findings(trace, facts, *_library_compile(evidence))
    problems = sorted(found, key=lambda finding: (-finding.cost_s, -(finding.eager_calls or 0), -finding.events))
    problems += speed_findings(trace)  # --vs-eager's: they cost no compile time of their own
    # compiled code that silently ignores what the user changed comes first: it costs no compile, only correctness
    nothing = nothing_compiled(trace, facts, compiles, breaks)
    problems, nothing = _one_cause_of_nothing(problems, nothing)
    # a method called through the wrapper where nothing compiled at all is that finding's cause: said there
    every = nothing + ignored_hooks(trace, evidence, compiles) + (uncompiled_methods(trace) if not nothing else []) + \
        problems + ignored_arguments(evidence) + shared + \
        ddp_splits(trace) + \
        one_time_setup(setup, facts) + dominant_stage(trace, facts)
    names = _hint_names(trace)  # once: per finding, it read every artifact again (findings x artifacts)
    return [_checked_hint(finding, names) for finding in every]


def _one_cause_of_nothing(problems: list[Finding], nothing: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """Where one skipped frame's finding holds every compile of a run that compiled nothing, the two are one cause:
    that finding, first, says that nothing compiled."""
    if not nothing or nothing[0].kind != "nothing-compiled" or not nothing[0].compile_ids:
        return problems, nothing
    cause = [finding for finding in problems if finding.kind == "frame-skipped"
             and set(nothing[0].compile_ids) <= set(finding.compile_ids)]
    if len(cause) != 1:
        return problems, nothing
    count = nothing[0].events
    said = dataclasses.replace(cause[0], parts=(
        f"torch.compile produced no graph in this run: its {count} compile{'s are' if count != 1 else ' is'} this "
        "finding's, and every call ran eager", *cause[0].parts))
    return [said, *(finding for finding in problems if finding is not cause[0])], []


def _library_compile(evidence: RunEvidence) -> tuple[str | None, str | None]:
    """(the package that made every torch.compile call of the run, the mode it passed), where one did."""
    call = evidence.library_compiled
    if call is None:
        return None, None
    mode = call.says("mode")
    return package_of(call.file), mode if isinstance(mode, str) else None


def _failures(facts: TraceFacts) -> dict[str, GuardFailure]:
    """Each recompile's cause, read from its failures against every version (``cause_of``), in compile order: what
    the frame's earlier recompiles varied is known by then."""
    varied: dict[str, set[str]] = {}
    causes: dict[str, GuardFailure] = {}
    for recompile in facts.recompiles:
        if not (recompile.compile_id and recompile.reasons):
            continue
        reasons = [parse_failure(reason) for reason in recompile.reasons]
        seen = varied.setdefault(recompile.compile_id.rpartition("/")[0], set())
        causes[recompile.compile_id] = cause_of(reasons, seen)
        seen |= varied_by(reasons)
    return causes


def run_evidence(trace: Trace, facts: TraceFacts | None = None) -> RunEvidence:
    """The evidence the findings' claims were checked against, for the checker (claim_check.py)."""
    facts = facts if facts is not None else analyze(trace)
    return gather(trace, named_failures(trace, _failures(facts)))


def compile_seconds(facts: TraceFacts) -> float:
    """The run's compile time: every compile's, its lazily compiled backward included (the whole of every cost)."""
    return sum(compile_facts.time_ns for compile_facts in facts.compiles) / 1e9


def headline(found: list[Finding], facts: TraceFacts) -> str:
    """One line for a clean run, or how many findings there are and what of the run's compile time they cost."""
    problems = [finding for finding in found if not finding.informational]
    if not problems:
        graphs = f"{facts.graph_count} graph{'s' if facts.graph_count != 1 else ''}"
        breaks = facts.totals().graph_breaks  # breaks shown only by the compiles they left (break_evidence.py)
        if breaks:
            return (f"No findings: {graphs}, {breaks} graph break{'s' if breaks != 1 else ''} whose reason no record "
                    "gives, no recompiles, nothing ran eager.")
        return f"No problems found: {graphs}, no graph breaks, no recompiles, nothing ran eager."
    count = f"{len(problems)} finding{'s' if len(problems) != 1 else ''}"
    speed = [finding for finding in problems if finding.kind in RUNTIME_KINDS]
    if len(speed) == len(problems):  # --vs-eager's alone: they are about run time, and cost no compile
        return f"{count}, on speed at run time"
    cost = sum(finding.cost_s for finding in problems)
    if cost < 0.0005:  # no compile time to share out (what compiled code does wrong costs none): a share reads "0 ns"
        return f"{count}: none cost compile time" + (f"; {len(speed)} on speed at run time" if speed else "")
    whole = compile_seconds(facts)
    share = f" ({cost / whole:.0%})" if whole else ""
    said = (f"{count}: {duration_s(cost)}{share} of the run's {duration_s(whole)} of compile went to "
            f"{'them' if not speed else f'the {len(problems) - len(speed)} on compiling'}")
    return said + (f"; {len(speed)} on speed at run time" if speed else "")


def _hint_names(trace: Trace) -> dict[str, str | None]:
    names: dict[str, str | None] = {}
    for artifact in trace.artifacts:
        found = artifact.metadata.get(HINT_NAMES)
        if isinstance(found, dict):
            names.update({str(wrong): (str(right) if right else None) for wrong, right in found.items()})
    return names


def _checked_hint(finding: Finding, names: dict[str, str | None]) -> Finding:
    """torch's hint with the torch names this torch lacks corrected (``torch._dynamo.X`` -> ``torch._dynamo.config.X``),
    or flagged where no such setting exists."""
    if not finding.hint:
        return finding
    wrong = [name for name in names if name in finding.hint]
    if not wrong:
        return finding
    hint, notes = finding.hint, []
    for name in wrong:
        right = names[name]
        if right:
            hint = hint.replace(name, right)
            notes.append(f"torch's hint says {name}, which this torch does not have; the setting is {right}")
        else:
            notes.append(f"torch's hint names {name}, which this torch does not have")
    return dataclasses.replace(finding, hint=hint, hint_note="; ".join([*notes, *filter(None, [finding.hint_note])]))
