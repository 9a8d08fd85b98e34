"""One failed guard of a recompile, as torch words it, read into what changed: the value, its kind, the line, a sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .frames import SourceLine, traceback_lines
from .user_names import is_stack_value, spoken, stack_value_words

_VERSION = re.compile(r"^(\d+/\d+|\S+): ")  # "0/3: " before each version's failure
_COMMENT = re.compile(r"#\s*(.*?)\s*#\s*(\S+\.py):(\d+) in (\w+)")  # "... # code  # file.py:5 in fn"
_TORCH_HINT = re.compile(r"\(HINT: (.*?)\)\s*$", re.M)
_TENSOR = re.compile(r"tensor '([^']+)' (\w+) mismatch(?: at index (\d+))?\.?\s*(?:expected ([^,]+), actual (\S+))?")
_OBJ_ID = re.compile(r"___check_obj_id\(\s*([^,]+),")
_TYPE_ID = re.compile(r"___check_type_id\(\s*([^,]+),")
# ``is`` needs spaces around it: ``len(self.state[list(…`` holds "is" inside a name.
_COMPARE = re.compile(r"^([A-Za-z_][\w.\[\]'()]*?)\s*(==|!=|<=|>=|<|>|\sis\s+not\s|\sis\s)\s*(.+?)\s*$")

KINDS = ("identity", "size", "dtype", "device", "requires_grad", "type", "value", "backend", "other")
_TENSOR_KINDS = {"size": "size", "stride": "size", "dimensionality": "size", "dtype": "dtype", "device": "device",
                 "requires_grad": "requires_grad"}


@dataclass(frozen=True)
class GuardFailure:
    """Why one cached version of a frame rejected a call: what the guard checked and on what."""

    version: str  # the version that rejected it, e.g. 0/2
    subject: str  # the guarded value in the user's words: ``tokens``, ``self.calls``, the number `x.item()` returned
    kind: str  # one of KINDS
    change: str  # what changed, in words: ``dimension 1 was 16, now 24``; ``it was 32``
    line: SourceLine | None  # the user's line the guard came from
    torch_hint: str | None  # torch's own hint inside the failure text
    raw: str  # torch's text, kept for the fold

    @property
    def on_stack(self) -> bool:
        """The value was computed before a graph break and handed to the resume function (not a name of the user's)."""
        return self.subject.startswith(("the number", "a value computed"))

    @property
    def sentence(self) -> str:
        """``the size of `tokens` changed (dimension 1: 16 before, now 24)``."""
        return self.said + (f" ({self.change})" if self.change else "")

    @property
    def said(self) -> str:
        """``the size of `tokens` changed``: what changed, without the values."""
        name = self.subject if self.on_stack else f"`{self.subject}`"
        said = {"identity": f"a different object was passed as {name} (Dynamo guards on its identity)",
                "size": f"the size of {name} changed", "dtype": f"the dtype of {name} changed",
                "device": f"the device of {name} changed", "requires_grad": f"{name}'s requires_grad changed",
                "type": f"the type of {name} changed", "value": f"the value of {name} changed",
                "backend": "the backend changed"}.get(self.kind, f"a guard on {name} failed")
        return said


def parse_failure(reason: str) -> GuardFailure:
    """A failure line as torch's recompile record gives it (``0/0: tensor 'x' size mismatch at index 0. …``)."""
    first = reason.splitlines()[0] if reason else ""
    version_match = _VERSION.match(first)
    version = version_match.group(1) if version_match else ""
    text = first[version_match.end():] if version_match else first
    guard = text.split("#", 1)[0].strip()
    comment = _COMMENT.search(first)
    frames = traceback_lines(reason)
    # The guard's own comment names the line that made it; a log may carry no "User stack trace" below it.
    line = SourceLine(comment.group(2), int(comment.group(3)), comment.group(4), comment.group(1)) if comment \
        else (frames[-1] if frames else None)
    hint = _TORCH_HINT.search(first)
    subject, kind, change = _read_guard(guard, line)
    return GuardFailure(version, subject, kind, change, line, hint.group(1).strip() if hint else None, reason)


def _read_guard(guard: str, line: SourceLine | None) -> tuple[str, str, str]:
    tensor = _TENSOR.search(guard)
    if tensor:
        name, what, index, expected, actual = tensor.groups()
        kind = _TENSOR_KINDS.get(what, "other")
        where = f"dimension {index}: " if index is not None else ""
        change = f"{where}{expected} before, now {actual}" if expected and actual else ""
        return spoken(name), kind, change
    identity = _OBJ_ID.search(guard)
    if identity:
        return spoken(identity.group(1)), "identity", ""
    typed = _TYPE_ID.search(guard)
    if typed:
        return spoken(typed.group(1)), "type", ""
    if "BACKEND_MATCH" in guard or "___check_current_backend" in guard:
        return "the backend", "backend", ""
    compared = _COMPARE.match(guard)
    if compared:
        source, operator, value = compared.groups()
        if is_stack_value(source):
            words = stack_value_words(line.code if line else "", line.line if line else None, value)
            return words, "value", f"it was {value} when the version before was compiled" if operator == "==" else ""
        return spoken(source), "value", f"it was {value} when the version before was compiled" \
            if operator == "==" else f"the guard was `{spoken(guard)}`"
    return spoken(guard)[:80] or "?", "other", ""


_TENSOR_GUARD = re.compile(r"check_tensor\(([^,]+),.*?size=\[([^\]]*)\]")
_EQUALS_GUARD = re.compile(r"EQUALS_MATCH: (.+?) ==")
_SOURCE = re.compile(r"source=(.+?), accessed_by=")


def made_dynamic(guards: str, failure: GuardFailure) -> bool:
    """Whether a version's guards (torch's guard tree text) no longer pin the value the failure was about: a size
    now ``None`` in its tensor check, an int guarded without its ``==`` (automatic dynamic)."""
    if failure.kind == "size":
        sizes = [match.group(2) for match in _TENSOR_GUARD.finditer(guards) if spoken(match.group(1)) == failure.subject]
        return bool(sizes) and all("None" in size for size in sizes)
    if failure.kind == "value" and not failure.on_stack:
        pinned = any(spoken(match.group(1)) == failure.subject for match in _EQUALS_GUARD.finditer(guards))
        present = any(spoken(match.group(1)) == failure.subject for match in _SOURCE.finditer(guards))
        return present and not pinned
    return False
