"""A library's one-time set-up, said once: where a library break runs in the first call only, the library frames that
its eager run compiled on their own in that call, with their breaks and recompiles, are the same set-up."""

from __future__ import annotations

import dataclasses

from tracers.tracefile.events import Trace

from .breaks import BreakGroup, first_call_only, skipped_places
from .finding_type import Finding, Ledger, unique_ids
from .frames import caller_paths, caller_places, is_library
from .run_evidence import RunEvidence
from .trace_facts import CompileFacts
from .user_names import frame_words


def claim_set_up(groups: list[BreakGroup], evidence: RunEvidence, trace: Trace,
                 compiles: dict[str, CompileFacts]) -> set[str]:
    """Joins to each first-call-only library break the groups and recompiles of the library codes its frames called
    whose every compile started before that code's next version (so in the first call, which the advised eager first
    call keeps out of any compile); returns the recompile ids it claims, which no recompile finding says again. A code
    that compiled again later, or a user's frame, keeps its own findings: the fix does not remove them."""
    claimed: set[str] = set()
    for group in groups:
        if group.set_up_of is not None or group.library is None:
            continue
        once = first_call_only(group, evidence.failures, compiles)
        if once is None:
            continue
        before = evidence.started.get(once.later[0])
        if before is None:
            continue
        codes = _set_up_codes(group, evidence, trace, compiles, before) - {once.code}
        for other in groups:
            if other is not group and other.set_up_of is None and other.library is not None and other.ids and \
                    {_code(compile_id) for compile_id in other.ids} <= codes:
                other.set_up_of = group
                group.set_up.append(other)
        for compile_id, failure in evidence.failures.items():
            if _code(compile_id) in codes and compile_id not in group.ids:
                group.set_up_recompiles[compile_id] = failure
                claimed.add(compile_id)
        if once.flipped is not None:  # the set-up's flag: that version is the code's first once the set-up is eager
            group.set_up_flip = (once.flipped, evidence.failures[once.flipped])
            claimed.add(once.flipped)
    return claimed


def _set_up_codes(group: BreakGroup, evidence: RunEvidence, trace: Trace, compiles: dict[str, CompileFacts],
                  before: int) -> set[str]:
    """The library codes (``6`` of ``6/1``) called from the group's frames whose compiles all started before
    ``before`` (the group's own among them: the break is inlined into each frame that calls its line)."""
    skipped = skipped_places(group, compiles)
    known = caller_paths(trace)
    by_code: dict[str, list[str]] = {}
    for compile_id in compiles:
        if "/" in compile_id:
            by_code.setdefault(_code(compile_id), []).append(compile_id)
    found = set()
    for code, ids in by_code.items():
        frame = compiles[ids[0]].frame or ""
        if not _in_library(frame, known):
            continue
        if all(evidence.started.get(compile_id, before) < before and caller_places(trace, compile_id) & skipped
               for compile_id in ids):
            found.add(code)
    return found


def _in_library(frame: str, known: frozenset[str]) -> bool:
    """``install_hook (output_capturing.py:150)``: the compiled code is a library's, its file named by the whole paths
    the run's frame records show (a file they never name is not taken for a library's)."""
    name = frame.split(" via ", 1)[0].rpartition(" (")[2].rstrip(")").rpartition(":")[0]
    whole = [path for path in known if path.rsplit("/", 1)[-1] == name]
    return bool(name) and bool(whole) and all(is_library(path) for path in whole)


def _code(compile_id: str) -> str:
    return compile_id.rpartition("/")[0]


def with_set_up(finding: Finding, group: BreakGroup, ledger: Ledger, compiles: dict[str, CompileFacts]) -> Finding:
    """The group's finding with its set-up's other frames said, their compiles among its ids and in its cost (their
    breaks' waste, their recompiles' whole compiles): the eager first call saves them all."""
    if not group.set_up and not group.set_up_recompiles and group.set_up_flip is None:
        return finding
    cost = sum(other.cost_s for other in group.set_up) + \
        sum(ledger.whole(compile_id) for compile_id in group.set_up_recompiles if not ledger.counted(compile_id))
    ids = [compile_id for other in group.set_up
           for compile_id in (*other.ids, *other.created, *other.merged, *other.nested, *other.by_products)]
    breaks = sum(len(other.artifacts) for other in group.set_up)
    titles = list(dict.fromkeys(title for other in group.set_up for title in other.titles))
    said = [f"{breaks} graph break{'s' if breaks != 1 else ''} ({'; '.join(titles)})"] if breaks else []
    if group.set_up_recompiles:
        count = len(group.set_up_recompiles)
        changes = "; ".join(f"{compile_id}: {failure.sentence}" for compile_id, failure in
                            group.set_up_recompiles.items())
        said.append(f"{count} recompile{'s' if count != 1 else ''} ({changes})")
    parts = [f"the same set-up's other library frames compiled on their own in that first call, with "
             f"{' and '.join(said)}: not causes of their own; an eager first call keeps them out of any compile too "
             "(in the cost)"] if said else []
    flip = []
    if group.set_up_flip is not None:
        compile_id, failure = group.set_up_flip
        flip = [compile_id]
        parts.append(f"compile {compile_id} is a recompile of {frame_words(compiles[compile_id].frame if compile_id in compiles else None)}: "
                     f"{failure.sentence}, once, as the set-up ran; with the first call eager it is that code's first "
                     "version (not in the cost: one version compiles either way)")
    return dataclasses.replace(
        finding, parts=(*finding.parts, *parts), cost_s=finding.cost_s + cost,
        compile_ids=unique_ids((*finding.compile_ids, *ids, *group.set_up_recompiles, *flip)),
        recompiles=finding.recompiles + len(group.set_up_recompiles) + len(flip))
