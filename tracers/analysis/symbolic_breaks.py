"""Breaks that exist only because a value was symbolic: an operator that needs a Python bool or int got a SymBool or
SymInt built from a dynamic size (``is_causal=(T > 1)``), or an f-string formats a number Dynamo traced as a symbol
(a Python float passed in that changed between calls), which code run eagerly never sees."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile.events import Artifact

# torch's message for an operator argument of the wrong type, inside the break's record
_WRONG_TYPE = re.compile(r"argument '(\w+)' must be (\w+), not (Sym(?:Bool|Int|Float))")
# torch's message for an f-string part that is a symbolic number (its debug context names the symbolic variable)
_FORMATTED = re.compile(r"BUILD_STRING type error.*?Developer debug context: SymNodeVariable", re.S)
_MAKES_DYNAMIC = re.compile(r"mark_dynamic|dynamic=True|[Mm]ark the dimension dynamic|compiled as dynamic from the start")
_SENTENCE_END = re.compile(r"(?<=[.)])\s+(?=[A-Z(])")

_GOT = {"SymBool": "symbolic bool", "SymInt": "symbolic int", "SymFloat": "symbolic float"}
_WANTED = {"bool": "Python bool", "int": "Python int", "float": "Python float"}


@dataclass(frozen=True)
class SymbolicBreak:
    """One break whose cause is a symbolic value where an operator needs a concrete one."""

    compile_id: str
    argument: str  # the operator's argument (``is_causal``)
    wanted: str  # ``bool``
    got: str  # ``SymBool``
    location: str  # ``decode.py:24``, where the call is

    @property
    def formatted(self) -> bool:
        """An f-string's part, not an operator's argument."""
        return not self.argument

    @property
    def said(self) -> str:
        """```is_causal` must be a Python bool and got a symbolic bool (SymBool)``."""
        if self.formatted:
            return "an f-string formats a number that is symbolic in this version, which Dynamo cannot put in a string"
        return (f"`{self.argument}` must be a {_WANTED.get(self.wanted, self.wanted)} and got a "
                f"{_GOT.get(self.got, self.got)} ({self.got})")


def symbolic_breaks(artifacts: Iterable[Artifact]) -> list[SymbolicBreak]:
    """The breaks among ``artifacts`` that an operator's argument type caused, where that argument was symbolic."""
    found = []
    for artifact in artifacts:
        if artifact.kind != "break" or not artifact.compile_id:
            continue
        wrong = _WRONG_TYPE.search(artifact.payload or "")
        location = str(artifact.metadata.get("location") or "").rsplit("/", 1)[-1]
        if wrong:
            found.append(SymbolicBreak(artifact.compile_id, *wrong.groups(), location))
        elif _FORMATTED.search(artifact.payload or ""):
            found.append(SymbolicBreak(artifact.compile_id, "", "str", "SymNode", location))
    return found


def symbolic_advice(found: SymbolicBreak, code: str, names: str = "") -> str:
    """The fix for such a break: a concrete value at that line, and no more dynamic sizes. ``names``: the values the
    version made symbols at that line, said (```lr` and the number `loss.item()` returned``)."""
    if found.formatted:
        which = names or "a number"
        return (f"At {found.location}, {which} went into an f-string{f' (`{code.strip()}`)' if code.strip() else ''}; "
                f"this version (compile {found.compile_id}) made {'them' if ' and ' in which else 'it'} symbolic "
                "after a change between calls (automatic dynamic: one version for every value, not one per value), "
                "and Dynamo cannot build a string from a symbolic number, so the whole frame ran eagerly. Run eagerly, "
                "the code is right, only its compiled form breaks. Format and print outside the compiled function: "
                "return the value and log it after the call; a number passed in only to be logged need not be "
                "passed in at all.")
    return (f"At {found.location}, {found.said}: a size is dynamic in this version (compile {found.compile_id}), so an "
            f"expression built from it stays symbolic{f' (`{code.strip()}`)' if code.strip() else ''}, and the "
            "operator cannot take it. Run eagerly, the value is a plain Python one: the code is right, only its "
            f"compiled form breaks. Give the operator a Python value: branch in Python on the condition with a literal "
            f"in each branch (`if …: … {found.argument}=True … else: … {found.argument}=False`), or compute it "
            "outside the compiled function and pass it in. Marking sizes dynamic makes this more likely, not less.")


def without_dynamic_advice(advice: str, found: SymbolicBreak) -> str:
    """``advice`` with its sentences that tell the user to make sizes dynamic taken out, and why: in this run a
    dynamic version broke on a symbolic value."""
    kept = [sentence for sentence in _SENTENCE_END.split(advice) if not _MAKES_DYNAMIC.search(sentence)]
    note = (f"Making sizes dynamic is not the fix in this run: a version compiled with a dynamic size (compile "
            f"{found.compile_id}) broke at {found.location}, where {found.said}; fix that line first (its own finding).")
    return " ".join([*kept, note])


def tells_dynamic(advice: str | None) -> bool:
    return bool(advice and _MAKES_DYNAMIC.search(advice))
