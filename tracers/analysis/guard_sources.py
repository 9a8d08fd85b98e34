"""Dynamo's guard sources (``L['self'].layers[2].weight``, ``x.size()[1]``) read with one grammar into a tree, and said
in the user's own names.

The grammar covers every ``Source._name_template`` of torch/_dynamo/source.py in the releases the project supports
(tests/tracers/analysis/test_guard_sources.py checks each release's file), and the failure-reason text where torch's
``strip_local_scope`` has turned ``L['x']`` into a bare ``x``. No torch import: the analysis runs without torch.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass

# Functions Dynamo prints around a source, as ``func(<source>, args...)``; each is a step of the chain.
WRAPPERS = frozenset({
    "type", "len", "list", "dict", "dict.keys", "int", "getattr", "object.__getattribute__", "dict.__getitem__",
    "list.__getitem__", "___odict_getitem", "___tuple_iterator_getitem", "___set_getitem",
    "___list_reverseiterator_backing_list", "___namedtuple_fields", "___dataclass_fields", "___from_numpy",
    "___as_tensor", "___unwrap_async_collective_tensor", "cast_symbool_to_symint_guardless",
})
_TRANSPARENT = frozenset({"___from_numpy", "___as_tensor", "___unwrap_async_collective_tensor",
                          "cast_symbool_to_symint_guardless", "int"})  # the user's value, converted by Dynamo
_GETITEM = frozenset({"dict.__getitem__", "list.__getitem__", "___odict_getitem", "___tuple_iterator_getitem",
                      "___set_getitem"})  # ``f(x, k)`` is ``x[k]`` to the user
_GETATTR = frozenset({"getattr", "object.__getattribute__"})
MODULE_DICTS = frozenset({"_modules", "_parameters", "_buffers"})  # nn.Module storage: the user wrote an attribute
# Names of the guard's own scope, never the user's: in failure text they stand bare like stripped locals do.
_GUARD_SCOPE = frozenset({"utils_device", "torch", "Tensor", "DispatchKeySet", "inf", "nan", "math", "G", "L"})

_IDENT = re.compile(r"[A-Za-z_]\w*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_SCOPED = re.compile(r"(L|G|SYNTHETIC_LOCAL)\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")
_CALL_ROOT = re.compile(r"(__import__|___get_torch_function_mode_stack_at|___get_current_stream)\(")
_INDEXED = re.compile(r"\((-?\d+), ")  # IndexedSource's ``(idx, <source>)``
_STACK = re.compile(r"___stack(\d+)$")
_IMPORT_ALIAS = re.compile(r"__import_(\w+)$")  # Dynamo's global alias for an imported module
_BUILTINS = re.compile(r"__builtins_dict___\d+$")  # Dynamo's global alias for the builtins dict
_TENSOR = re.compile(r"tensor '(.+?)' (?=[A-Za-z_ ]*?mismatch)")  # C++ TENSOR_MATCH failure; names hold quotes
_DUPLICATES = re.compile(r"Duplicate tensors found: (.*)")  # NO_TENSOR_ALIASING's reason: lists of names
_VERSION = re.compile(r"^\s*(?:- )?\d+/\d+: ")  # "0/3: ", in the recompiles log "    - 0/3: "
_TREE = re.compile(r"^[| ]*\+- (?:\w+: )?(?:GuardManager: )?")  # a guard tree line's drawing and kind
_TYPE_NOTE = re.compile(r", type=<.*>$")  # an ID_MATCH/TYPE_MATCH guard's note of the type it saw
_TREE_SOURCE = re.compile(r"source=(.+?), (?:accessed_by|type)=")


@dataclass(frozen=True)
class Root:
    """Where a source starts: ``kind`` is local, global, stack, constant or unknown; ``text`` as torch printed it."""

    kind: str
    name: str
    text: str


@dataclass(frozen=True)
class Attr:
    """``.name``."""

    name: str

    def render(self, inner: str) -> str:
        return f"{inner}.{self.name}"


@dataclass(frozen=True)
class Item:
    """``[key]``: ``key`` is the int, str or slice, a Source (a dict key guarded by its own source), or None."""

    text: str
    key: object

    def render(self, inner: str) -> str:
        return f"{inner}[{self.text}]"


@dataclass(frozen=True)
class Call:
    """``(args)`` after a method (``.size()``) or a weakref (``G['w']()``); args kept as text."""

    args: str = ""

    def render(self, inner: str) -> str:
        return f"{inner}({self.args})"


@dataclass(frozen=True)
class Wrap:
    """``func(before..., <inner>, after...)``: ``type(x)``, ``___as_tensor(x)``, IndexedSource's ``(0, x)``."""

    func: str
    after: tuple[str, ...] = ()
    before: tuple[str, ...] = ()

    def render(self, inner: str) -> str:
        return f"{self.func}({', '.join((*self.before, inner, *self.after))})"


Step = Attr | Item | Call | Wrap


@dataclass(frozen=True)
class Source:
    """A guard source as a tree: its root, then the steps applied in order."""

    root: Root
    steps: tuple[Step, ...] = ()

    def __str__(self) -> str:
        text = self.root.text
        for step in self.steps:
            text = step.render(text)
        return text


@dataclass(frozen=True)
class WrapperArg:
    """An argument a ``*args, **kwargs`` wrapper received: ``args[index]`` or ``kwargs[keyword]``."""

    index: int | None = None
    keyword: str | None = None


@dataclass(frozen=True)
class Naming:
    """A source in the user's words: the value's ``name`` (None for a stack value) and what of it was guarded."""

    name: str | None
    attribute: str | None = None  # size, stride, storage_offset, type, len: the guard read this of the value
    dim: int | None = None  # the dimension of a size or stride
    wrapper_arg: WrapperArg | None = None
    stack: int | None = None  # N of ``___stackN``: a value computed before a graph break


def parse_source(text: str, bare: str = "local") -> Source | None:
    """The whole of ``text`` as one source, or None. ``bare`` is the kind of a bare root such as ``x``: a local in a
    failure reason (torch strips ``L[...]`` there), a constant in guard code."""
    parsed = _Parser(text.strip(), bare).source(0)
    return parsed[0] if parsed and parsed[1] == len(text.strip()) else None


def find_sources(text: str) -> list[tuple[tuple[int, int], Source]]:
    """Every source in a guard line, a guard tree or a failure reason, with its span in ``text``.

    Bare names count as the user's locals only where torch stripped ``L[...]`` (the text holds no ``L[``)."""
    bare = "constant" if "L[" in text else "local"
    found: list[tuple[tuple[int, int], Source]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip(" -").startswith("User stack trace:"):
            break  # the user's own code follows: not torch's names
        found += [((offset + start, offset + end), source) for (start, end), source in _line_sources(line, bare)]
        offset += len(line)
    return found


def naming(source: Source) -> Naming:
    """What the user would call the guarded value, with the size/stride/type read of it kept apart."""
    steps, attribute, dim = list(source.steps), None, None
    last = steps[-1] if steps else None
    if steps[-3:-1] in ([Attr("size"), Call()], [Attr("stride"), Call()]) and isinstance(last, Item) \
            and isinstance(last.key, int):
        attribute, dim, steps = steps[-3].name, last.key, steps[:-3]
    elif steps[-2:] == [Attr("storage_offset"), Call()]:
        attribute, steps = "storage_offset", steps[:-2]
    elif isinstance(last, Wrap) and last.func in ("type", "len"):
        attribute, steps = last.func, steps[:-1]
    root = source.root
    stack = _STACK.match(root.name)
    if root.kind == "stack" and stack:
        return Naming(None, attribute, dim, stack=int(stack.group(1)))
    argument = _wrapper_arg(root, steps)
    if argument and argument.keyword is not None:
        return Naming(_said(argument.keyword, steps[1:]), attribute, dim, argument)
    return Naming(_said(_root_said(root, steps), steps), attribute, dim, argument)


def user_name(source: Source | str | None) -> str | None:
    """The guarded value as the user wrote it: ``L['self']._modules['fc']._parameters['weight']`` -> ``self.fc.weight``;
    None for a stack value (``___stack0``) or text that is no source."""
    if isinstance(source, str):
        source = parse_source(source)
    return naming(source).name if source is not None else None


def map_wrapper_args(source: Source, call_args: list[str], call_kwargs: dict[str, str]) -> str | None:
    """``args[0]``/``kwargs['ids']`` of a ``*args, **kwargs`` wrapper as the expression the call site passed
    (``model(x)`` -> ``x``), with the rest of the chain; None when the source is no wrapper argument or unmatched."""
    named = naming(source)
    argument = named.wrapper_arg
    if argument is None:
        return None
    if argument.index is not None:
        passed = call_args[argument.index] if argument.index < len(call_args) else None
    else:
        passed = call_kwargs.get(argument.keyword or "")
    return None if passed is None else _said(passed, list(source.steps)[1:len(source.steps) - _tail_len(source)])


def map_passed(source: Source, passed: dict[str, str]) -> str | None:
    """A parameter of the compiled function (``x``, ``args[0]``, ``kwargs['ids']``) as the expression the user's call
    bound to it (``images``), with the rest of the chain; None when the call bound nothing to it."""
    if source.root.kind != "local":
        return None
    steps = list(source.steps)[:len(source.steps) - _tail_len(source)]
    first = steps[0] if steps else None
    if isinstance(first, Item) and isinstance(first.key, (int, str)):
        expression = passed.get(f"{source.root.name}[{first.key!r}]")
        if expression is not None:  # a keyword names it where the expression is none; a position does not
            return _said(expression, steps[1:]) if _names_a_value(expression) or isinstance(first.key, int) else None
    expression = passed.get(source.root.name)
    return _said(expression, steps) if expression is not None and _names_a_value(expression) else None


def _names_a_value(expression: str) -> bool:
    """``images``, ``batch['x']``, ``self.inputs[0]``: a name the user holds the value by. An expression that makes
    the value (``torch.randn(4, 16)``) is no name: the parameter's own name says it better."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return False
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Constant, ast.Name)):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def compiled_argument(code: str) -> str | None:
    """What a line's torch.compile call was given, as written (``compiled = torch.compile(model, …)`` -> ``model``);
    None where the line holds no such call."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if named == "compile" and node.args:
            return ast.unparse(node.args[0])
    return None


def call_site(code: str) -> tuple[list[str], dict[str, str]] | None:
    """The arguments of the one call on a line (``out = model(x, mask=m)`` -> ``(['x'], {'mask': 'm'})``); None where
    the line holds none or several."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None
    # The callee is a name (``model(x)``, ``self.net(x)``), not a method of another call's result
    # (``model(x).pow(2).mean()``): that is the object torch.compile wrapped.
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _named_callee(node.func)]
    if len(calls) != 1:
        return None  # ``loss(model(x), y)``: which call reached the compiled function is not in a line's text
    call = calls[0]
    return ([ast.unparse(arg) for arg in call.args],
            {kw.arg: ast.unparse(kw.value) for kw in call.keywords if kw.arg is not None})


def _named_callee(func: ast.expr) -> bool:
    """``model`` or ``self.model``: a name or an attribute chain on one."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name)


def _tail_len(source: Source) -> int:
    named = naming(source)
    return {"size": 3, "stride": 3, "storage_offset": 2, "type": 1, "len": 1}.get(named.attribute or "", 0)


def _wrapper_arg(root: Root, steps: list[Step]) -> WrapperArg | None:
    first = steps[0] if steps else None
    if root.kind != "local" or not isinstance(first, Item):
        return None
    if root.name == "args" and isinstance(first.key, int):
        return WrapperArg(index=first.key)
    if root.name == "kwargs" and isinstance(first.key, str):
        return WrapperArg(keyword=first.key)
    return None


def _root_said(root: Root, steps: list[Step]) -> str:
    """The root as the user names it; a builtins-dict alias takes its ``['len']`` step off ``steps``."""
    if root.kind == "global":
        alias = _IMPORT_ALIAS.match(root.name)
        if alias:
            return alias.group(1).replace("_dot_", ".")
        if _BUILTINS.match(root.name) and steps and isinstance(steps[0], Item) and isinstance(steps[0].key, str):
            name = steps.pop(0).key
            return str(name)
    return root.name or root.text if root.kind in ("local", "global") else root.text


def _said(text: str, steps: list[Step]) -> str:
    for index, step in enumerate(steps):
        before = steps[index - 1] if index else None
        if isinstance(step, Attr) and step.name in MODULE_DICTS and isinstance(_next(steps, index), Item):
            continue  # ``._modules['fc']`` is ``.fc``: the key step says it
        if isinstance(step, Item) and isinstance(before, Attr) and before.name in MODULE_DICTS \
                and isinstance(step.key, str):
            text = f"{text}[{step.key}]" if step.key.isdigit() else f"{text}.{step.key}"
        elif isinstance(step, Item):
            text = f"{text}[{_key_said(step.text, step.key)}]"
        elif isinstance(step, Wrap) and step.func in _TRANSPARENT:
            continue
        elif isinstance(step, Wrap) and step.func in _GETITEM and step.after:
            text = f"{text}[{_key_said(step.after[0], _literal(step.after[0]) or parse_source(step.after[0]))}]"
        elif isinstance(step, Wrap) and step.func in _GETATTR and step.after:
            member = _literal(step.after[0])
            text = f"{text}.{member}" if isinstance(member, str) and member.isidentifier() else step.render(text)
        elif isinstance(step, Wrap) and step.func == "dict.keys":
            text = f"{text}.keys()"
        else:
            text = step.render(text)
    return text


def _key_said(text: str, key: object) -> str:
    """A key as the user would write it: ``1:4`` for ``slice(1, 4, None)``, a key's source in the user's names."""
    if isinstance(key, slice):
        step = "" if key.step is None else f":{key.step}"
        return f"{'' if key.start is None else key.start}:{'' if key.stop is None else key.stop}{step}"
    if isinstance(key, Source):
        return user_name(key) or text
    return text


def _next(steps: list[Step], index: int) -> Step | None:
    return steps[index + 1] if index + 1 < len(steps) else None


def _line_sources(line: str, bare: str) -> list[tuple[tuple[int, int], Source]]:
    """The sources of one line; a verbose reason joins several failures with ``; ``."""
    start = _VERSION.match(line) or _TREE.match(line)
    bare = "constant" if _TREE.match(line) else bare  # a guard tree is never stripped of L[...]
    found, at = [], start.end() if start else 0
    for part in line[at:].split("; "):
        found += [((at + s, at + e), source) for (s, e), source in _part_sources(part, bare)]
        at += len(part) + 2
    return found


def _part_sources(text: str, bare: str) -> list[tuple[tuple[int, int], Source]]:
    """A tensor check's quoted name, a tree node's ``source=``, duplicate tensors' names, or a guard's code."""
    tensors = [(m.span(1), parse_source(m.group(1), bare)) for m in _TENSOR.finditer(text)]
    if tensors:
        return [(span, source) for span, source in tensors if source]
    duplicates = _DUPLICATES.search(text)
    if duplicates:  # ``["a", "kwargs['b']"]``: each name is a string of a list
        names = re.finditer(r"\"([^\"]+)\"|'([^']+)'", text[duplicates.start(1):])
        spans = [(duplicates.start(1) + m.start(), duplicates.start(1) + m.end(), m.group(1) or m.group(2))
                 for m in names]
        return [((s + 1, e - 1), source) for s, e, name in spans if (source := parse_source(name, bare))]
    node = _TREE_SOURCE.search(text)
    if node:
        source = parse_source(node.group(1), bare)
        return [(node.span(1), source)] if source else []
    code = _TYPE_NOTE.sub("", text.split("  #", 1)[0].split(" # ", 1)[0].rstrip())
    try:  # prose (a backend mismatch, an error) is no guard code: its words are no sources
        ast.parse(code.strip(), mode="eval")
    except SyntaxError:
        return []
    return _Parser(code, bare).scan()


def _literal(text: str) -> object:
    """A key's value: int, str, slice, or None when it is no literal."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    match = re.fullmatch(r"slice\((.*)\)", text)
    if match:
        try:
            return slice(*ast.literal_eval(f"({match.group(1)},)"))
        except (ValueError, SyntaxError, TypeError):
            return None
    return None


class _Parser:
    """Recursive descent over one text; each method takes a position and gives (result, end) or None."""

    def __init__(self, text: str, bare: str) -> None:
        self.text, self.bare = text, bare

    def scan(self) -> list[tuple[tuple[int, int], Source]]:
        """Every maximal source in guard code, skipping strings, keywords and the guard's own helper calls."""
        found, at, text = [], 0, self.text
        while at < len(text):
            char = text[at]
            if char in "'\"":
                at = self._string_end(at)
                continue
            starts_name = (char.isalpha() or char in "_<(") and (at == 0 or not (text[at - 1].isalnum()
                                                                                 or text[at - 1] in "._'\""))
            parsed = self.source(at) if starts_name else None
            if parsed and self._counts(parsed[0], parsed[1]):
                found.append(((at, parsed[1]), parsed[0]))
                at = parsed[1]
                continue
            word = _DOTTED.match(text, at) if starts_name and char not in "<(" else None
            at = word.end() if word else at + 1
        return found

    def _counts(self, source: Source, end: int) -> bool:
        """Whether a parsed stretch of guard code is a source, not a helper's name or a keyword argument."""
        root = source.root
        if root.kind not in ("local", "constant") or root.text != root.name:
            return True  # ``L[...]``, ``G[...]``, ``___stack0``, a call root: torch's own forms
        if root.kind == "constant" or keyword.iskeyword(root.name) or root.name in _GUARD_SCOPE:
            return False
        rest = self.text[end:].lstrip()
        called = bool(source.steps) and isinstance(source.steps[0], Call)  # ``hasattr(x, 'a')``: a helper call
        return not called and not (rest.startswith("=") and not rest.startswith("=="))

    def source(self, at: int) -> tuple[Source, int] | None:
        parsed = self._primary(at)
        if parsed is None:
            return None
        (root, steps), at = parsed
        steps = list(steps)
        while at < len(self.text):
            step = self._postfix(at)
            if step is None:
                break
            steps.append(step[0])
            at = step[1]
        return Source(root, tuple(steps)), at

    def _primary(self, at: int) -> tuple[tuple[Root, tuple[Step, ...]], int] | None:
        text = self.text
        scoped = _SCOPED.match(text, at)
        if scoped:
            scope, name = scoped.group(1), ast.literal_eval(scoped.group(2))
            kind = {"L": "local", "G": "global"}.get(scope, "unknown")
            kind = "stack" if kind == "local" and _STACK.match(name) else kind
            return (Root(kind, name, scoped.group()), ()), scoped.end()
        call_root = _CALL_ROOT.match(text, at)
        if call_root:
            end = self._balanced(call_root.end() - 1, ")")
            if end is None:
                return None
            args = text[call_root.end():end - 1]
            kind, name = ("global", str(_literal(args))) if call_root.group(1) == "__import__" else ("unknown", args)
            return (Root(kind, name, text[at:end]), ()), end
        if text.startswith("<ephemeral", at):
            end = text.find(">", at)
            return ((Root("unknown", text[at + 1:end], text[at:end + 1]), ()), end + 1) if end > 0 else None
        if text.startswith("(", at):  # IndexedSource: ``(idx, <source>)``
            number = _INDEXED.match(text, at)
            inner = self.source(number.end()) if number else None
            if not inner or not text.startswith(")", inner[1]):
                return None
            wrap = Wrap("", before=(number.group(1),))
            return (inner[0].root, (*inner[0].steps, wrap)), inner[1] + 1
        dotted = _DOTTED.match(text, at)
        if dotted and dotted.group() in WRAPPERS and text.startswith("(", dotted.end()):
            return self._wrapper(dotted.group(), dotted.end() + 1)
        word = _IDENT.match(text, at)
        if not word:
            return None
        name = word.group()
        if name == "G" and not text.startswith("[", word.end()):
            return (Root("global", "", name), ()), word.end()  # the globals dict itself (``source=G``)
        stack, random = _STACK.match(name), name.startswith("random_value_")
        kind = "stack" if stack else "unknown" if random else self.bare
        return (Root(kind, name, name), ()), word.end()

    def _wrapper(self, func: str, at: int) -> tuple[tuple[Root, tuple[Step, ...]], int] | None:
        inner = self.source(at)
        if inner is None:
            return None
        source, at = inner
        after = []
        while self.text.startswith(", ", at):
            end = self._argument_end(at + 2)
            after.append(self.text[at + 2:end])
            at = end
        if not self.text.startswith(")", at):
            return None
        return (source.root, (*source.steps, Wrap(func, tuple(after)))), at + 1

    def _postfix(self, at: int) -> tuple[Step, int] | None:
        text = self.text
        if text.startswith(".", at):
            word = _IDENT.match(text, at + 1)
            return (Attr(word.group()), word.end()) if word else None
        if text.startswith("[", at):
            end = self._balanced(at, "]")
            return (self._item(text[at + 1:end - 1]), end) if end else None
        if text.startswith("(", at):
            end = self._balanced(at, ")")
            return (Call(text[at + 1:end - 1]), end) if end else None
        return None

    def _item(self, key: str) -> Item:
        value = _literal(key)
        if value is None and key != "None":
            value = parse_source(key, self.bare)  # a dict key guarded through its own source
        return Item(key, value)

    def _argument_end(self, at: int) -> int:
        """The end of one argument: the next comma or close bracket at depth 0."""
        depth = 0
        while at < len(self.text):
            char = self.text[at]
            if char in "'\"":
                at = self._string_end(at)
                continue
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    return at
                depth -= 1
            elif char == "," and depth == 0:
                return at
            at += 1
        return at

    def _balanced(self, at: int, close: str) -> int | None:
        """The position after the bracket that closes the one at ``at``; None if it never closes."""
        end = self._argument_end(at + 1)
        while end < len(self.text) and self.text[end] == ",":
            end = self._argument_end(end + 1)
        return end + 1 if end < len(self.text) and self.text[end] == close else None

    def _string_end(self, at: int) -> int:
        quote, at = self.text[at], at + 1
        while at < len(self.text) and self.text[at] != quote:
            at += 2 if self.text[at] == "\\" else 1
        return at + 1
