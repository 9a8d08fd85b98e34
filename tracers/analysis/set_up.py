"""A library's set-up, said once: where a library break sends the function it is in to eager, the library frames that
function called, compiled on their own as it ran, with their breaks and recompiles, are the same cause."""

from __future__ import annotations

import dataclasses

from tracers.tracefile.events import Trace

from .breaks import BreakGroup, def_lines, defined_at, enclosing, first_call_only
from .finding_type import Finding, Ledger, unique_ids
from .frames import all_callers, caller_paths, is_library
from .run_evidence import RunEvidence
from .trace_facts import CompileFacts
from .user_names import frame_words


def claim_set_up(groups: list[BreakGroup], evidence: RunEvidence, trace: Trace,
                 compiles: dict[str, CompileFacts]) -> set[str]:
    """Joins to each library break in a function Dynamo ran eagerly the groups and recompiles of the library codes that
    function called, compiled on their own as it ran: every compile of such a code started before the next version of
    the code that broke (for a break in the first call only, which the advised eager first call keeps out of any
    compile; else a size change, which a later call may bring again, is left to its own finding). Returns the
    recompile ids it claims, which no recompile finding says again. A code that compiled again later, or a user's
    frame, keeps its own findings: the fix does not remove them."""
    claimed: set[str] = set()
    defs = def_lines(compiles)
    done: set[str] = set()  # library lines whose groups were seen: breaks at one line (a skip and a resumed break
    # of the same `with`) are one finding in the end (hint_checks), so their set-up is said once, on one of them
    for first in groups:
        line = first.library.short if first.library is not None else None
        if line is None or line in done or first.set_up_of is not None:
            continue
        done.add(line)
        siblings = [group for group in groups if group.library is not None and group.library.short == line
                    and group.set_up_of is None]
        eager = _eager_frames(first, groups, compiles)
        if not eager:
            continue
        # the sibling whose breaks show the first call only carries it: its finding says the eager first call
        group, once = next(((group, found) for group in siblings
                            if (found := first_call_only(group, evidence.failures, compiles)) is not None),
                           (first, None))
        before = evidence.started.get(once.later[0]) if once is not None else _next_version(group, evidence)
        if before is None:
            continue
        codes = _set_up_codes(evidence, trace, compiles, before, eager, defs) - ({once.code} if once else set())
        for other in groups:
            if other not in siblings and other.set_up_of is None and other.library is not None and other.ids and \
                    {_code(compile_id) for compile_id in other.ids} <= codes:
                other.set_up_of = group
                group.set_up.append(other)
        for compile_id, failure in evidence.failures.items():
            if _code(compile_id) in codes and compile_id not in group.ids and compile_id not in claimed and \
                    (once or failure.kind != "size"):
                group.set_up_recompiles[compile_id] = failure
                claimed.add(compile_id)
        group.set_up_first = once is not None
        if once is not None and once.flipped is not None and once.flipped not in claimed:
            # the set-up's flag: with the first call eager, that version is the code's first
            group.set_up_flip = (once.flipped, evidence.failures[once.flipped])
            claimed.add(once.flipped)
    return claimed


def _next_version(group: BreakGroup, evidence: RunEvidence) -> int | None:
    """The start of the next version of the code whose version broke first (a later call that compiled it again), or
    past the run's end where none did; None where the trace holds no clock for the group."""
    starts = {compile_id: evidence.started[compile_id] for compile_id in group.ids if compile_id in evidence.started}
    if not starts:
        return None
    first = min(starts, key=starts.get)
    later = [evidence.started[compile_id] for compile_id in evidence.later_versions(first)
             if compile_id in evidence.started]
    return min(later, default=max(evidence.started.values()) + 1)


def _set_up_codes(evidence: RunEvidence, trace: Trace, compiles: dict[str, CompileFacts], before: int,
                  eager: set[tuple[str, str, int]], defs: dict[tuple[str, str], list[int]]) -> set[str]:
    """The library codes (``6`` of ``6/1``) called from the eager frames (the set-up's own calls, as it ran), whose
    compiles all started before ``before``."""
    known = caller_paths(trace)
    by_code: dict[str, list[str]] = {}
    for compile_id in compiles:
        if "/" in compile_id:
            by_code.setdefault(_code(compile_id), []).append(compile_id)
    found = set()
    for code, ids in by_code.items():
        if not _in_library(compiles[ids[0]].frame or "", known):
            continue
        if all(evidence.started.get(compile_id, before) < before and _called_from(trace, compile_id, eager, defs)
               for compile_id in ids):
            found.add(code)
    return found


def _called_from(trace: Trace, compile_id: str, eager: set[tuple[str, str, int]],
                 defs: dict[tuple[str, str], list[int]]) -> bool:
    """One of the compile's callers is a line of one of the eager frames."""
    return any(enclosing(caller, defs) in eager for caller in all_callers(trace, compile_id))


def _eager_frames(group: BreakGroup, groups: list[BreakGroup],
                  compiles: dict[str, CompileFacts]) -> set[tuple[str, str, int]]:
    """(file name, function, def line) of the function the group broke in, where it was itself a frame Dynamo could
    not resume and ran eagerly (a skip at the same line): what it called then compiled on its own. A break resumed
    inside a model's forward is no such set-up (empty)."""
    found = set()
    for other in groups:
        if not (other.skipped and other.library is not None and group.library is not None and
                other.library.short == group.library.short):
            continue
        for compile_id in other.ids:
            place = defined_at(compiles[compile_id].frame) if compile_id in compiles else None
            if place is not None and place[1] == group.library.function and \
                    place[0] == group.library.path.rsplit("/", 1)[-1]:
                found.add(place)
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
    breaks' waste, their recompiles' whole compiles): the break's fix saves them all."""
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
    parts = [(f"the same set-up's other library frames compiled on their own in that first call, with "
              f"{' and '.join(said)}: not causes of their own; an eager first call keeps them out of any compile too "
              "(in the cost)") if group.set_up_first else
             (f"the library frames called from `{group.library.function if group.library else 'it'}` compiled on "
              f"their own as it ran eagerly, with {' and '.join(said)}: not causes of their own, they go with this "
              "break (in the cost)")] if said else []
    flip = []
    if group.set_up_flip is not None:
        compile_id, failure = group.set_up_flip
        flip = [compile_id]
        frame = compiles[compile_id].frame if compile_id in compiles else None
        parts.append(f"compile {compile_id} is a recompile of {frame_words(frame)}: {failure.sentence}, once, as the "
                     "set-up ran; with the first call eager it is that code's first version (not in the cost: one "
                     "version compiles either way)")
    return dataclasses.replace(
        finding, parts=(*finding.parts, *parts), cost_s=finding.cost_s + cost,
        compile_ids=unique_ids((*finding.compile_ids, *ids, *group.set_up_recompiles, *flip)),
        recompiles=finding.recompiles + len(group.set_up_recompiles) + len(flip))
