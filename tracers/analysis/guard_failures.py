"""One failed guard of a recompile, as torch words it, read into what changed: the value, its kind, the line, a sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .frames import SourceLine, traceback_lines
from .guard_sources import Source, find_sources, naming, parse_source
from .user_names import spoken, stack_value_words

_DIMENSION = re.compile(r"dimension (\d+):")  # how a size change is worded (``change``)
_VERSION = re.compile(r"^(\d+/\d+|\S+): ")  # "0/3: " before each version's failure
_VERSION_ID = re.compile(r"\d+/\d+")
_COMMENT = re.compile(r"#\s*(.*?)\s*#\s*(\S+\.py):(\d+) in (\w+)")  # "... # code  # file.py:5 in fn"
_TORCH_HINT = re.compile(r"\(HINT: (.*?)\)\s*$", re.M)
_HINT_NAME = re.compile(r'^guard on "([A-Za-z_]\w*)"([^\s,]*)')  # torch's name for a closure's value: ``"captured"[0]``
# The name may hold quotes itself (``tensor 'kwargs['input_ids']' size mismatch``).
_TENSOR = re.compile(r"tensor '(.+?)' (\w+) mismatch(?: at index (\d+))?\.?\s*(?:expected ([^,]+), actual (\S+))?")
_OBJ_ID = re.compile(r"___check_obj_id\(\s*([^,]+),")
_TYPE_ID = re.compile(r"___check_type_id\(\s*([^,]+),")

KINDS = ("identity", "size", "dtype", "device", "requires_grad", "type", "value", "length", "global", "backend",
         "other")
_GLOBAL_STATE = re.compile(r"GLOBAL_STATE changed: (.*)")  # torch's C++ GlobalStateGuard reason
_GLOBAL_WORDS = {"grad_mode": "grad mode (`torch.no_grad()`, `torch.enable_grad()`)",
                 "autocast": "autocast (`torch.autocast`)", "default_dtype": "the default dtype",
                 "deterministic_algorithms": "deterministic algorithms", "torch_function": "a torch function mode"}
_CODE = re.compile(r"CodeGuardAccessor: Not a function on (.+?)\.__code__")
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
    source: str = ""  # the guarded value as torch names it (``args[0]``, ``kwargs['ids']``), for call-site mapping

    @property
    def on_stack(self) -> bool:
        """The value was computed before a graph break and handed to the resume function (not a name of the user's)."""
        return self.subject.startswith(("the number", "a value computed"))

    @property
    def dimension(self) -> int | None:
        """The dimension a size change is at (``dimension 1: 9 before, now 12``); None for any other change."""
        found = _DIMENSION.match(self.change) if self.kind == "size" else None
        return int(found.group(1)) if found else None

    @property
    def guard(self) -> str:
        """The guard that failed, as torch wrote it, in the user's names (``(1.0 + ((-1)*self.p)) == 0.84``)."""
        return spoken(_guard_of(self.raw.splitlines()[0] if self.raw else "")[1])

    @property
    def computed(self) -> bool:
        """The guard pinned a number computed from the value (``(1.0 - self.p) == 0.84``), not the value itself:
        the guard's line needed a Python number there."""
        return self.kind == "value" and _computed_from(_guard_of(self.raw.splitlines()[0] if self.raw else "")[1]) \
            is not None

    @property
    def worded(self) -> bool:
        """The subject is words, not a name the user wrote (a stack value, an argument no call site names)."""
        return self.on_stack or self.subject.startswith("the call's ")

    @property
    def sentence(self) -> str:
        """``the size of `tokens` changed (dimension 1: 16 before, now 24)``."""
        return self.said + (f" ({self.change})" if self.change else "")

    @property
    def said(self) -> str:
        """``the size of `tokens` changed``: what changed, without the values."""
        name = self.subject if self.worded else f"`{self.subject}`"
        said = {"identity": f"a different object was passed as {name} (Dynamo guards on its identity)",
                "size": f"the size of {name} changed", "dtype": f"the dtype of {name} changed",
                "device": f"the device of {name} changed", "requires_grad": f"{name}'s requires_grad changed",
                "type": f"the type of {name} changed",
                "value": f"{name} changed" if self.worded else f"the value of {name} changed",
                "length": f"the number of items in {name} changed",
                "keys": f"the keys of {name} changed",
                "global": f"{self.subject} changed",
                "backend": "the backend changed"}.get(self.kind, f"a guard on {name} failed")
        return said


def parse_failure(reason: str) -> GuardFailure:
    """A failure line as torch's recompile record gives it (``0/0: tensor 'x' size mismatch at index 0. …``)."""
    first = reason.splitlines()[0] if reason else ""
    version, guard = _guard_of(first)
    comment = _COMMENT.search(first)
    frames = traceback_lines(reason)
    # The guard's own comment names the line that made it; a log may carry no "User stack trace" below it.
    line = SourceLine(comment.group(2), int(comment.group(3)), comment.group(4), comment.group(1)) if comment \
        else (frames[-1] if frames else None)
    hint = _TORCH_HINT.search(first)
    subject, kind, change, source = _read_guard(guard, line)
    if _VERSION_ID.fullmatch(version):  # which version: the one it failed against, not always the newest
        change = change.replace("when the version before was compiled", f"when version {version} was compiled")
    # a global of the script itself (``G['__import___main__'].features``) is the name the script wrote: ``features``
    subject = subject.removeprefix("__main__.")
    hint_text = hint.group(1).strip() if hint else None
    named = _HINT_NAME.match(hint_text or "")
    if named and ".__closure__[" in subject:  # a closure's cell (a hook's list): torch names the variable it holds
        subject = named.group(1) + named.group(2)
    return GuardFailure(version, subject, kind, change, line, hint_text, reason, source)


def _guard_of(first: str) -> tuple[str, str]:
    """(version, guard) of a failure's first line: ``0/3: x.p == 2  # code  # f.py:4 in fn`` -> ``0/3``, ``x.p == 2``."""
    version = _VERSION.match(first)
    text = first[version.end():] if version else first
    return (version.group(1) if version else ""), text.split("#", 1)[0].strip()


def _read_guard(guard: str, line: SourceLine | None) -> tuple[str, str, str, str]:
    """(subject, kind, change, source): what the guard checked, said in the user's names (guard_sources.py)."""
    tensor = _TENSOR.search(guard)
    if tensor:
        name, what, index, expected, actual = tensor.groups()
        kind = _TENSOR_KINDS.get(what, "other")
        where = f"dimension {index}: " if index is not None else ""
        change = f"{where}{expected} before, now {actual}" if expected and actual else ""
        source = parse_source(name)
        if source is not None and naming(source).stack is not None:  # a tensor the code before a break handed on
            return stack_value_words(line.code if line else "", line.line if line else None), kind, change, name
        return _said(name), kind, change, name
    for pattern, kind in ((_OBJ_ID, "identity"), (_TYPE_ID, "type")):
        found = pattern.search(guard)
        if found:
            return _said(found.group(1)), kind, "", found.group(1).strip()
    if "BACKEND_MATCH" in guard or "___check_current_backend" in guard:
        return "the backend", "backend", "", ""
    state = _GLOBAL_STATE.search(guard)
    if state:
        words = [_GLOBAL_WORDS.get(part, part.replace("_", " ")) for part in state.group(1).split()]
        return ", ".join(words) or "torch's global state", "global", "", ""
    code = _CODE.search(guard)
    if code:  # the function object passed changed (a new lambda, another activation): its identity is guarded
        name = _said(code.group(1))
        return name, "identity", "", code.group(1)
    key = _DICT_CONTAINS.match(guard)
    if key:  # ``___dict_contains('k', cache)``: whether the dict holds the key is guarded, not the dict
        absent, _, name, holder = key.groups()
        return _said(holder), "keys", f"it {'held no' if absent else 'held the'} key '{name}' when the version before " \
            "was compiled", holder.strip()
    missing = _KEY_ERROR.match(guard)
    if missing:  # the version read a key this call's dict does not hold
        holder, _, name = missing.groups()
        return _said(holder), "keys", f"it held the key '{name}' when the version before was compiled", holder.strip()
    not_tensor = _NOT_TENSOR.search(guard)
    if not_tensor:  # torch's check that a tensor argument still is one (the call passed a dict or a tuple)
        return _said(not_tensor.group(1)), "type", f"a tensor before, now {not_tensor.group(2)}", not_tensor.group(1)
    emptiness = _NOT.match(guard)
    if emptiness:  # ``not G['features']``: the list (or dict) was empty when the version before was compiled
        found = find_sources(emptiness.group(1))
        if found and found[0][0] == (0, len(emptiness.group(1))):
            source = found[0][1]
            return naming(source).name or spoken(emptiness.group(1)), "length", \
                "it was empty when the version before was compiled", emptiness.group(1)
    none = _IS_NONE.match(guard)
    if none and find_sources(none.group(1)):  # ``x is None`` held, or did not, when the version before compiled
        source = find_sources(none.group(1))[0][1]
        return naming(source).name or spoken(none.group(1)), "value", \
            f"it was {'set' if none.group(2) else 'None'} when the version before was compiled", none.group(1)
    sized = _size_of(guard)
    aligned = _ALIGNED.search(guard)
    if sized is not None and aligned:  # ``(x.size()[1] % 8) == 0``: compiled for sizes that were all multiples of 8
        return sized[0], "size", f"a multiple of {aligned.group(1) or aligned.group(2)} when the version before was " \
            "compiled, not now", sized[1]
    if sized is not None and not guard.lstrip().startswith(("___", "check_")):
        # an expression of an input's size (``(x.size()[2] // 8) * … != 16``): a size changed, said as torch wrote it
        name, raw = sized
        return name, "size", f"the guard was `{spoken(guard)}`", raw
    compared = _compared(guard)
    if compared is not None:
        source, operator, value = compared
        named = naming(source)
        if named.stack is not None:
            words = stack_value_words(line.code if line else "", line.line if line else None, value)
            return words, "value", f"it was {value} when the version before was compiled" if operator == "==" else "", \
                str(source)
        subject = named.name or spoken(str(source))
        if named.attribute in ("size", "stride") and named.dim is not None:
            return subject, "size", f"dimension {named.dim}: {value} before" if operator == "==" else \
                f"the guard was `{spoken(guard)}`", str(source)
        if named.attribute == "len":
            return subject, "length", f"it had {value} items when the version before was compiled" \
                if operator == "==" else f"the guard was `{spoken(guard)}`", str(source)
        return subject, "value", f"it was {value} when the version before was compiled" \
            if operator == "==" else f"the guard was `{spoken(guard)}`", str(source)
    computed = _computed_from(guard)
    if computed is not None:  # ``(1.0 + ((-1)*self.p)) == 0.84``: a number made from one value was pinned
        named = naming(computed)
        return named.name or spoken(str(computed)), "value", \
            f"`{spoken(guard)}` held when the version before was compiled", str(computed)
    branched = _computed_from(guard, _COMPARES_NUMBER)
    if branched is not None:  # ``((1 + step) % 4) != 0``: a branch on a number made from a dynamic value
        named = naming(branched)
        return named.name or spoken(str(branched)), "value", f"the guard was `{spoken(guard)}`", str(branched)
    return spoken(guard)[:80] or "?", "other", "", ""


_EQUALS_NUMBER = re.compile(r"==\s*-?\d+(?:\.\d+)?(?:e-?\d+)?\s*$")
_BRANCH_OPERATOR = re.compile(r"\)\s*%\s*\d|//")
_COMPARES_NUMBER = re.compile(r"(?:!=|<=|>=|<|>)\s*-?\d+(?:\.\d+)?(?:e-?\d+)?\s*$")


def _computed_from(guard: str, ends: re.Pattern[str] | None = None) -> Source | None:
    """The one plain value (not a size, not a stack value) a guard ``EXPRESSION == number`` computes with: torch
    pinned the expression, as when a symbolic float reached an operator that needs a Python number (``ends``: another
    comparison with a number, as a branch on the expression guards it)."""
    ends = ends or _EQUALS_NUMBER
    if not ends.search(guard):
        return None
    found = find_sources(guard)
    if len({str(source) for _, source in found}) != 1:
        return None
    (start, end), source = found[0]
    if not guard[:start].strip(" (") and ends.fullmatch(guard[end:].lstrip(" )")):
        return None  # the value itself pinned (``self.depth == 2``): no number computed from it
    named = naming(source)
    return source if named.stack is None and named.attribute is None else None


def _said(text: str) -> str:
    """A source in the user's words, by the grammar; the older text reading where the grammar finds no source."""
    source = parse_source(text)
    named = naming(source) if source is not None else None
    argument = named.wrapper_arg if named is not None else None
    if argument is not None and argument.index is not None and named.name == f"args[{argument.index}]":
        return ordinal_argument(argument.index)  # no call site at hand: words, never torch's spelling
    return (named.name if named is not None else None) or spoken(text)


def ordinal_argument(index: int) -> str:
    """``args[0]`` of a ``*args`` wrapper where no call site names it: ``the call's first argument``."""
    words = ("first", "second", "third", "fourth", "fifth")
    return f"the call's {words[index]} argument" if index < len(words) else f"the call's argument {index + 1}"


_OPERATOR = re.compile(r"^\s*(==|!=|<=|>=|<|>|is\s+not\s|is\s)\s*(.+?)\s*$")


_NOT = re.compile(r"^\s*not\s+(\S.*?)\s*$")
_DICT_CONTAINS = re.compile(r"^\s*(not\s+)?___dict_contains\((['\"])(.*?)\2,\s*(.+)\)\s*$")
_KEY_ERROR = re.compile(r"^\s*KeyError on (.+)\[(['\"])(.*?)\2\]\s*$")
_NOT_TENSOR = re.compile(r"expected type of '(.+?)' to be a tensor type, '? ?but found <class '([\w.]+)'>")


def _size_of(guard: str) -> tuple[str, str] | None:
    """(the user's name, torch's) of the first input whose size a compound guard computes with."""
    for (start, end), source in find_sources(guard):
        named = naming(source)
        if named.attribute in ("size", "stride") and named.name:
            return named.name, guard[start:end]
    return None


def _compared(guard: str) -> tuple[Source, str, str] | None:
    """``t == 5``, ``len(crops) == 2``, ``self.p is not None``: the source on the left, the operator, the value."""
    for (start, end), source in find_sources(guard):
        if guard[:start].strip():
            continue  # only the left-hand side is the guarded value
        found = _OPERATOR.match(guard[end:])
        if found:
            return source, found.group(1).strip(), found.group(2)
    return None


_TENSOR_GUARD = re.compile(r"check_tensor\((.+?), \w+, DispatchKeySet.*?size=\[([^\]]*)\]")
_LITERAL = re.compile(r"^\s*==\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?|True|False|None|'[^']*'|\"[^\"]*\")\s*(?:#|$)")


def made_dynamic(guards: str, failure: GuardFailure) -> bool:
    """Whether a version's guards (torch's guard tree text) no longer pin the value the failure was about: a size
    now ``None`` in its tensor check, a value guarded without any ``== constant`` (automatic dynamic). A value that
    the next version pins again (``EQUALS_MATCH`` or a shape guard ``L['t'] == 4``) was specialised, not dynamic."""
    names = {failure.subject, _said(failure.source)} if failure.source else {failure.subject}  # a call site's too
    if failure.kind == "size":
        sizes = [match.group(2) for match in _TENSOR_GUARD.finditer(guards) if _said(match.group(1)) in names]
        return bool(sizes) and all("None" in size for size in sizes)
    if failure.kind == "value" and not failure.on_stack:
        if _NOT_A_NUMBER.search(failure.change):  # only ints and floats become symbols: a str, a bool, None never do
            return False
        present = pinned = False
        for line in guards.splitlines():
            text = _GUARD_KIND.sub("", line.split("  #", 1)[0])
            for (start, end), source in find_sources(text):
                named = naming(source)
                if named.name not in names or named.attribute is not None:
                    continue
                present = True
                # a number made from it pinned: specialised; a remainder or a floor division of it that equals a
                # number is one side of a branch on it (``((1 + step) % 4) == 0``): the value stays a symbol
                pinned = pinned or bool(_LITERAL.match(text[end:]) and not text[:start].strip(" (")) \
                    or (_computed_from(text) is not None and not _BRANCH_OPERATOR.search(text))
        return present and not pinned
    return False


def size_at(guards: str, failure: GuardFailure) -> str | None:
    """The size a version's guards (torch's guard tree text) hold for the failure's tensor at its dimension:
    ``6``, ``None`` (symbolic); None where they hold no check of it."""
    names = {failure.subject, _said(failure.source)} if failure.source else {failure.subject}
    dim = failure.dimension
    for match in _TENSOR_GUARD.finditer(guards):
        if dim is not None and _said(match.group(1)) in names:
            sizes = [size.strip() for size in match.group(2).split(",")]
            return sizes[dim] if dim < len(sizes) else None
    return None


_IS_NONE = re.compile(r"^\s*(.+?)\s+is\s+(not\s+)?None\s*$")
_ALIGNED = re.compile(r"%\s*(\d+)\)?\s*==\s*0|Mod\(.+?,\s*(\d+)\),\s*0\)")
_NOT_A_NUMBER = re.compile(r"^it was (?!-?\d)")
_GUARD_KIND = re.compile(r"^[| ]*\+- \w+: ")  # a guard tree line's drawing and kind, before its code


# Guards every version checks before the call's own values (grad mode first, then an input's type or identity): a
# version failing one of these is of another mode, not the version the call differs from by a value. A version
# that failed on the keys a dict holds, or on the number of keyword arguments (a library's call passing more for a
# decoding step than for the prompt), was compiled for the other kind of call too.
_COARSE = frozenset({"global", "type", "identity", "backend", "keys"})
_CALL_ITEMS = frozenset({"kwargs", "args"})


def cause_of(reasons: list[GuardFailure], varied: set[str]) -> GuardFailure:
    """The failure that says what this call changed, of one recompile's failures (one per version it was tried
    against, torch's order): a value or size that failed against a version of the call's own mode and requires_grad,
    where one did (a version that fails grad mode was compiled for the other mode), and of those a value the frame's
    earlier recompiles had not already varied (``varied``: their sources and subjects), else the first."""
    fine = [failure for failure in reasons if failure.kind not in _COARSE
            and not (failure.kind == "length" and failure.subject in _CALL_ITEMS)] or reasons
    # a version compiled for the other requires_grad of a tensor is another kind of call, as one of another grad mode
    # is: where another version failed on the same tensor's size (its requires_grad matched there, checked first),
    # the size is what changed; a requires_grad against the only version that saw it (layers unfrozen) stays
    sized = {failure.source or failure.subject for failure in fine if failure.kind == "size"}
    fine = [failure for failure in fine if not (failure.kind == "requires_grad" and
                                                (failure.source or failure.subject) in sized)] or fine
    return _with_new_size(next((failure for failure in fine if not _related(failure, varied)), fine[0]), reasons)


_NOW = re.compile(r"^dimension (\d+): .*?now (\d+)$")


def _with_new_size(failure: GuardFailure, reasons: list[GuardFailure]) -> GuardFailure:
    """A size failure on a range (``2 <= x.size()[0] <= 15``) says no new size; the same recompile's failure against
    another version of the same tensor and dimension does (``expected 32, actual 1``): the size is said with it."""
    if failure.kind != "size" or failure.dimension is not None:
        return failure
    for other in reasons:
        found = _NOW.match(other.change) if other.kind == "size" and other.subject == failure.subject else None
        if found and f".size()[{found.group(1)}]" in failure.change:
            return replace(failure, change=f"dimension {found.group(1)}: now {found.group(2)} ({failure.change})")
    return failure


def varied_by(reasons: list[GuardFailure]) -> set[str]:
    """What one recompile's failures show varying: the sources and subjects its versions failed on."""
    return {name for failure in reasons for name in (failure.source, failure.subject) if name}


def _related(failure: GuardFailure, varied: set[str]) -> bool:
    """The failure is on a value already seen varying, or on a part or a holder of one (``cache`` and
    ``cache['k']``)."""
    names = {name for name in (failure.source, failure.subject) if name}
    return any(name == seen or name.startswith(seen) or seen.startswith(name) for name in names for seen in varied)
