"""Graph breaks a trace shows without a break record: a compile restarted for a break, a resume function compiled."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tracers.tracefile import compile_identity

from .user_names import resume_place

# Why a break is counted: torch's own break record; else the compile's restart for it (an older torch logs no break
# record, only compilation_metrics' restart_reasons); else a resume function compiled after it (Dynamo makes one per
# place it resumes after a break: torch_dynamo_resume_in_<function>_at_<line>).
RECORD, RESTART, RESUME = "break record", "restart", "resume function"
# A restart for another cause than a break carries no message: convert_frame.py adds the exception's type instead
# (``restart_reasons.add(e.restart_reason or str(type(e)))``, e.g. TensorifyScalarRestartAnalysis).
_NOT_A_BREAK = "<class '"


class _Compile(Protocol):
    compile_id: str
    frame: str | None
    restarts: tuple[str, ...]


def function_of(frame: str | None) -> str:
    """The code name a frame's breaks are counted under: a resume function's is the function it continues."""
    name = (frame or "").split(" (", 1)[0].strip()
    place = resume_place(name)
    return place[0] if place else name.rsplit(".", 1)[-1]


def unrecorded(compiles: Sequence[_Compile], recorded: dict[str, int], has_record: set[str]) -> list[list[str]]:
    """Breaks no record shows, as [compile id, location, reason, evidence]; ``recorded``: the counted break records
    per compile, ``has_record``: compiles with any break record (one Dynamo could not resume from included).

    Each break is counted once whatever shows it: a compile's restarts stand for its breaks only where it has no
    record; a resume function's place only where no counted break of its function, in an earlier compile, is left
    for it to continue after."""
    found: list[list[str]] = []
    ordered = sorted((c for c in compiles if "/" in c.compile_id), key=lambda c: compile_identity.sort_key(c.compile_id))
    pending: dict[str, list[int | None]] = {}  # function -> its counted breaks not yet matched (index in found)
    last: dict[str, str] = {}  # function -> its latest compile so far
    places: set[tuple[str, int]] = set()
    for compile_facts in ordered:
        function = function_of(compile_facts.frame)
        place = resume_place((compile_facts.frame or "").split(" (", 1)[0].strip())
        if place and place not in places:
            places.add(place)
            location = f"{_file(compile_facts.frame)}:{place[1]}"
            waiting = pending.get(function) or []
            if waiting:
                index = waiting.pop(0)  # the break it continues after, counted already: now its place is known
                if index is not None and found[index][1] == "?":
                    found[index][1] = location
            elif function in last:  # else a nested break's inner frame: its break is the outer compile's, counted
                found.append([last[function], location,
                              f"Dynamo resumed `{function}` after line {place[1]} in a resume function", RESUME])
        last[function] = compile_facts.compile_id
        if compile_facts.compile_id in has_record:
            pending.setdefault(function, []).extend([None] * recorded.get(compile_facts.compile_id, 0))
            continue
        for reason in compile_facts.restarts:
            if reason.startswith(_NOT_A_BREAK):
                continue
            first = next((line.strip() for line in reason.strip().strip("'\"").splitlines() if line.strip()), "?")
            found.append([compile_facts.compile_id, "?", first, RESTART])
            pending.setdefault(function, []).append(len(found) - 1)
    return found


def _file(frame: str | None) -> str:
    """``test_misc.py`` of ``torch_dynamo_resume_in_fn_at_9551 (test_misc.py:9551)``."""
    inside = (frame or "").split(" (", 1)[1] if " (" in (frame or "") else "?"
    return inside.split(":", 1)[0].rstrip(")") or "?"
