"""Recompiles grouped by frame and by what changed, each said against the version it failed, with the recompile limit
attached to the recompile it refused, and advice that fits what torch did next (automatic dynamic or not)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracers.tracefile.events import Trace

from .finding_type import EXPLANATION, HINT, LIMIT, RECOMPILES, SHAPES, Finding, Ledger, first_match, unique_ids
from .frames import SourceLine, short
from .guard_failures import GuardFailure, made_dynamic
from .trace_facts import CompileFacts, TraceFacts
from .user_names import frame_words, resume_place

_LIMIT = re.compile(r"recompile[_ ]limit|cache[_ ]size[_ ]limit", re.I)
_LIMIT_VALUE = re.compile(r"currently set to (\d+)")

_ADVICE = {
    "identity": "Dynamo guards on the identity of `{name}`: every new object compiles a new version. Keep it out of "
                "the compiled function (compile per choice, or select it with a constant), or compile only the part "
                "that does not depend on it.",
    "size": "A size changed and Dynamo compiled a new version for it. Mark the dimension dynamic before the first "
            "call (torch._dynamo.mark_dynamic) if it keeps changing.",
    "dtype": "Each dtype of `{name}` compiles its own version: expected if intended, else cast before the call.",
    "device": "Each device of `{name}` compiles its own version.",
    "requires_grad": "`{name}` switched requires_grad: each setting compiles its own version.",
    "type": "`{name}` arrived with another type: each type compiles its own version.",
    "value": "The value of `{name}` is a constant in the compiled graph: each new value compiles a new version. If it "
             "varies from call to call, pass it as a tensor.",
    "backend": "Each torch.compile backend compiles its own version of the frame: expected when comparing backends.",
    "other": "A guard on `{name}` failed: see the reason and the guards of the compile before it.",
}
_ATTRIBUTE = ("`{name}` is an int attribute of the module: torch.compile treats it as a constant, so each new value "
              "compiles a new version (and once the recompile limit is reached, calls run eager). Keep it out of "
              "forward (count outside the compiled call), or keep it in a tensor buffer (register_buffer) updated in "
              "place.")
_NOT_YOURS = ("The guard is in `{frame}` ({file}), which your line calls, not in your code: state it reads changed "
              "after the version before was compiled. Once is expected when such state fills on the first call (an "
              "optimizer's first step creates its state); if it repeats, see torch's guard below.")
_DYNAMIC = ("Nothing to fix if it keeps changing: after the first change Dynamo compiled it as dynamic (automatic "
            "dynamic), and that version served every later call. To skip the first, static version: {how}.")
_DYNAMIC_HOW = {"size": "torch._dynamo.mark_dynamic(tensor, dim) before the first call, or torch.compile(..., "
                        "dynamic=True)",
                "value": "torch.compile(..., dynamic=True)"}


@dataclass
class _Group:
    frame: str  # the frame that recompiled, as the user calls it
    failures: list[tuple[str, GuardFailure]]  # (compile id, its failure against the version before)


_PROPAGATES = frozenset({"size", "dtype", "device", "requires_grad"})


def recompile_findings(trace: Trace, facts: TraceFacts, compiles: dict[str, CompileFacts],
                       failures: dict[str, GuardFailure], merged: set[str], ledger: Ledger) -> list[Finding]:
    """One finding per frame and cause; the recompiles a break's line caused are left to that break (``merged``)."""
    groups: dict[tuple[str, str, str], _Group] = {}
    for compile_id, failure in failures.items():
        if compile_id in merged:
            continue
        frame = _base_frame(compiles[compile_id].frame if compile_id in compiles else None)
        # A tensor's size, dtype or device change reaches the frame's resume functions through the values it
        # made (their `y` is the frame's `x * 2`): one cause, one finding, named by the frame's own failure.
        subject = "" if failure.kind in _PROPAGATES else failure.subject
        key = (frame, subject, failure.kind)
        groups.setdefault(key, _Group(frame, [])).failures.append((compile_id, failure))
    limits = {compile_id: facts for compile_id, facts in compiles.items()
              if facts.fail_reason and _LIMIT.search(facts.fail_reason)}
    limit_of = _limits_to_groups(groups, limits)
    out = [_finding(trace, key, group, compiles, limit_of.get(key), ledger) for key, group in
           sorted(groups.items(), key=lambda item: -len(item[1].failures))]
    for compile_id, limit in limits.items():  # a limit hit with no recompile reasons recorded for it
        if compile_id not in {limit.compile_id for limit in limit_of.values()}:
            out.append(Finding(
                kind="recompile-limit", what=f"`{_base_frame(limit.frame)}` hit the recompile limit: calls that fail "
                                             "its guards run eager", events=1, compile_ids=(compile_id,),
                cost_s=ledger.whole(compile_id), cost_counts="the refused compile",
                eager_calls=trace.info.calls_eager.get(compile_id), eager_note=trace.info.calls_note,
                explanation=first_match(EXPLANATION, limit.fail_reason or ""),
                hint=first_match(HINT, limit.fail_reason or ""), explained=LIMIT))
    return out


def _limits_to_groups(groups: dict[tuple[str, str, str], _Group],
                      limits: dict[str, CompileFacts]) -> dict[tuple[str, str, str], CompileFacts]:
    """The limit belongs to the group whose recompile it refused; else to the largest group of that frame."""
    limit_of: dict[tuple[str, str, str], CompileFacts] = {}
    by_size = sorted(groups.items(), key=lambda item: -len(item[1].failures))
    for compile_id, limit in limits.items():
        home = next((key for key, group in by_size if any(member == compile_id for member, _ in group.failures)), None) \
            or next((key for key, _ in by_size if key[0] == _base_frame(limit.frame) and key not in limit_of), None)
        if home is not None and home not in limit_of:
            limit_of[home] = limit
    return limit_of


def _finding(trace: Trace, key: tuple[str, str, str], group: _Group, compiles: dict[str, CompileFacts],
             limit: CompileFacts | None, ledger: Ledger) -> Finding:
    frame, _, kind = key
    ids = unique_ids(compile_id for compile_id, _ in group.failures)
    first = group.failures[0][1]
    subject = first.subject
    compiled = [compile_id for compile_id in ids if limit is None or compile_id != limit.compile_id]
    # Whether the frame that failed first went dynamic: its own latest version (not a resume function's).
    first_frame = compiles[group.failures[0][0]].frame if group.failures[0][0] in compiles else None
    own = [compile_id for compile_id in compiled if compile_id in compiles and compiles[compile_id].frame == first_frame]
    last = compiles.get(own[-1]) if own else None
    dynamic = last is not None and made_dynamic(_guards(trace, last.compile_id), first)
    frames = list(dict.fromkeys(short(compiles[compile_id].frame or "") for compile_id in compiled
                                if compile_id in compiles))
    who = frame_words(frames[0]) if len(frames) == 1 else f"`{frame}`"
    where = f" (in {' and in '.join(frame_words(name) for name in frames)})" if len(frames) > 1 else ""
    changed = first.said
    what = f"{who} recompiled {len(compiled)} time{'s' if len(compiled) != 1 else ''}{where}: {changed}"
    advice = _ADVICE.get(kind, _ADVICE["other"]).format(name=subject)
    explained = SHAPES if kind == "size" else RECOMPILES
    if dynamic:
        served = f"; version {last.compile_id} served {last.calls} call{'s' if last.calls != 1 else ''}" \
            if last.calls else ""
        what += f", then Dynamo compiled it as dynamic{served}"
        advice = _DYNAMIC.format(how=_DYNAMIC_HOW.get(kind, _DYNAMIC_HOW["value"]))
        explained = SHAPES
    elif kind == "value" and subject.startswith("self."):
        advice = _ATTRIBUTE.format(name=subject)
    line = _line(trace, first, ids[0])
    elsewhere = _frame_file(compiles, ids[0])
    if not dynamic and len(compiled) == 1 and elsewhere and line is not None and line.short.split(":")[0] != elsewhere:
        # The guard is in code the user calls (a library's), not theirs: said so, and not told to rewrite it.
        advice = _NOT_YOURS.format(frame=frame, file=elsewhere)
    eager, explanation, hint = None, None, first.torch_hint
    cost = sum(ledger.whole(compile_id) for compile_id in ids)
    if limit is not None:
        cost += ledger.whole(limit.compile_id)
        ids = unique_ids((*ids, limit.compile_id))
        eager = trace.info.calls_eager.get(limit.compile_id)
        cap = _LIMIT_VALUE.search(limit.fail_reason or "")
        refused = f"the recompile limit{f' ({cap.group(1)})' if cap else ''} refused a new version"
        what = f"{what}; then {refused}: calls no version accepts run eager" if compiled else \
            f"`{frame}`: {changed}, and {refused}: calls no version accepts run eager"
        explanation = first_match(EXPLANATION, limit.fail_reason or "")
        hint = first_match(HINT, limit.fail_reason or "") or hint
        explained = LIMIT
    parts = tuple(f"{compile_id}: {failure.sentence}" for compile_id, failure in group.failures)
    return Finding(
        kind="recompile-limit" if limit is not None else "recompile", what=what, events=len(group.failures),
        compile_ids=ids, cost_s=cost, user_line=line,
        graphs_added=sum(compiles[compile_id].graphs for compile_id in ids if compile_id in compiles),
        eager_calls=eager, eager_note=trace.info.calls_note if limit is not None else None,
        explanation=explanation, hint=hint, advice=advice, explained=explained, parts=parts,
        cost_counts="the recompiles' whole compiles, backward included",
        detail="\n\n".join(failure.raw for _, failure in group.failures[:3]))


def _frame_file(compiles: dict[str, CompileFacts], compile_id: str) -> str | None:
    """``sgd.py`` of ``SGD.step (sgd.py:105)``: the file of the frame that recompiled."""
    frame = compiles[compile_id].frame if compile_id in compiles else None
    match = re.search(r"\(([^():]+):\d+\)", frame or "")
    return match.group(1) if match else None


def _line(trace: Trace, failure: GuardFailure, compile_id: str) -> SourceLine | None:
    """The user's line the guard came from, else the line that called the frame."""
    if failure.line is not None and failure.line.line:
        return failure.line
    for artifact in trace.artifacts:
        if artifact.kind == "frame" and artifact.compile_id == compile_id:
            frame = artifact.metadata.get("user_frame")
            if frame:
                return SourceLine(frame.get("filename", "?"), int(frame.get("line") or 0), frame.get("name", ""),
                                  frame.get("loc", ""))
    return None


def _guards(trace: Trace, compile_id: str) -> str:
    texts = [artifact.payload or "" for artifact in trace.artifacts
             if artifact.kind == "guards" and artifact.compile_id == compile_id]
    return texts[-1] if texts else ""


def _base_frame(frame: str | None) -> str:
    """A resume function Dynamo made after a break in ``f`` stands for ``f``: they recompile for the same cause."""
    name = short(frame or "?")
    place = resume_place(name)
    return place[0] if place else name

