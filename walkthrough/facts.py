"""Checked facts, read statically: a setting's default (``torch._dynamo.config.recompile_limit == 8``) or a line of
torch's code (``torch._dynamo.symbolic_convert:InstructionTranslatorBase contains "BINARY_SUBSCR = break_graph_if_unsupported("``, or a C++ header's)."""

from __future__ import annotations

import ast
import importlib
import operator
from dataclasses import dataclass

from walkthrough.symbols import Resolver, SymbolNotFound

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow, ast.Mod: operator.mod,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_}
_CONFIG_CALLS = {"Config", "_Config"}
# C/C++ headers ship in the wheel (torch/include/): a claim about one is checked against its text, as torch's
# C++ is not parsed; ``torch/csrc/dynamo/cache_entry.h contains "py::object guard_manager;"``.
HEADER_SUFFIXES = (".h", ".hpp")


class NotStatic(Exception):
    """A value that only running torch could tell (an environment lookup, a function call)."""


@dataclass(frozen=True)
class Claim:
    """``name == expected`` where name is dotted (module, then class-level attributes) and expected a literal;
    or ``module:qualname contains "code"``: the definition's source holds that code (whitespace runs count as one
    space), the way a claim about what torch *does* is checked; a module-level name (``module:setting``) stands
    for its assignment, so a setting's environment variable can be claimed too."""

    name: str
    expected: object
    expected_text: str  # as written, for display
    text: str  # the whole claim as written, its identity in the lock
    op: str = "=="

    @classmethod
    def parse(cls, text: str) -> Claim:
        symbol, contains, code = text.partition(" contains ")
        if contains and ":" in symbol:
            return cls._parse_contains(symbol.strip(), code.strip(), text)
        if contains and symbol.strip().endswith(HEADER_SUFFIXES):
            return cls._parse_contains(symbol.strip(), code.strip(), text, header=True)
        name, sep, value = text.partition("==")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value or not all(p.isidentifier() for p in name.split(".")):
            raise ValueError(f"fact {text!r}: expected 'dotted.name == literal', "
                             "e.g. torch._dynamo.config.recompile_limit == 8")
        try:
            expected = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"fact {text!r}: {value!r} is not a Python literal") from None
        return cls(name, expected, value, f"{name} == {value}")

    @classmethod
    def _parse_contains(cls, symbol: str, value: str, text: str, header: bool = False) -> Claim:
        module, _, qualname = symbol.partition(":")
        if header:
            if not symbol.startswith("torch/") or ".." in symbol.split("/") or " " in symbol:
                raise ValueError(f"fact {text!r}: expected 'torch/path/to/file.h contains \"code\"'")
        elif not all(p.isidentifier() for p in module.split(".")) or not all(p.isidentifier() for p in qualname.split(".")):
            raise ValueError(f"fact {text!r}: expected 'module:qualname contains \"code\"'")
        try:
            expected = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            expected = None
        if not isinstance(expected, str) or not expected.strip():
            raise ValueError(f"fact {text!r}: {value!r} is not a non-empty string literal")
        return cls(symbol, expected, value, f"{symbol} contains {value}", "contains")


@dataclass(frozen=True)
class FactResult:
    claim: Claim
    status: str  # true | false | missing | unknown (cannot be evaluated statically)
    actual: str = ""  # repr of the value found
    path: str = ""
    line: int = 0
    reason: str = ""

    @property
    def holds(self) -> bool:
        return self.status == "true"


def evaluate(resolver: Resolver, claim: Claim, _depth: int = 0) -> FactResult:
    """Find the assignment that sets the name's default and compare its literal value with the claim."""
    if claim.op == "contains":
        return _evaluate_contains(resolver, claim)
    parts = claim.name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        path = resolver.module_path(module)
        if path is not None:
            break
    else:
        return FactResult(claim, "missing", reason=f"no module of {claim.name} in torch {resolver.version}")
    tree = resolver.parse(path)
    if tree is None:
        return FactResult(claim, "unknown", path=path, reason=f"{path} does not parse")
    body: list[ast.stmt] = tree.body
    attrs = parts[cut:]
    for owner in attrs[:-1]:  # nested config classes, e.g. torch._inductor.config.triton.cudagraphs
        classes = [s for s in body if isinstance(s, ast.ClassDef) and s.name == owner]
        if not classes:
            return FactResult(claim, "missing", path=path, reason=f"{module} has no class {owner}")
        body = classes[-1].body
    node = _last_assignment(body, attrs[-1])
    if node is None:
        return FactResult(claim, "missing", path=path, reason=f"{claim.name} is not assigned in {path}")
    try:
        value = _default(node.value, resolver, _depth)
    except NotStatic as exc:
        return FactResult(claim, "unknown", path=path, line=node.lineno, reason=str(exc))
    holds = value == claim.expected and type(value) is type(claim.expected)
    return FactResult(claim, "true" if holds else "false", repr(value), path, node.lineno)


def evaluate_live(claim: Claim, static: FactResult) -> FactResult:
    """For a claim the source cannot settle (an env lookup, a call): import the installed module and read it."""
    parts = claim.name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(value, attr):
                return FactResult(claim, "missing", path=static.path, line=static.line,
                                  reason=f"the installed torch has no {claim.name}")
            value = getattr(value, attr)
        holds = value == claim.expected and type(value) is type(claim.expected)
        return FactResult(claim, "true" if holds else "false", repr(value), static.path, static.line,
                          "read from the installed torch")
    return static


def _header(resolver: Resolver, path: str) -> str | None:
    """A C/C++ header's text: where a source checkout keeps it, or where a wheel ships it (torch/include/)."""
    for where in (path, f"torch/include/{path}"):
        text = resolver.source.read(where)
        if text is not None:
            return text
    return None


def _evaluate_contains(resolver: Resolver, claim: Claim) -> FactResult:
    """The definition's source (or a header's text) holds the code; the result points at the line where it starts."""
    if claim.name.endswith(HEADER_SUFFIXES):
        text = _header(resolver, claim.name)
        if text is None:
            return FactResult(claim, "missing", reason=f"torch {resolver.version} has no {claim.name}")
        path, first = claim.name, 1  # linked at its place in torch's repository, not in the wheel
    else:
        try:
            symbol = resolver.resolve(claim.name)
        except SymbolNotFound as exc:
            found = _module_assignment(resolver, claim.name)
            if found is None:
                return FactResult(claim, "missing", reason=exc.reason)
            text, path, first = found
        except ValueError as exc:
            return FactResult(claim, "missing", reason=str(exc))
        else:
            text, path, first = symbol.text, symbol.path, symbol.start
    needle = " ".join(str(claim.expected).split())
    lines = text.splitlines()
    flat, starts = "", []  # the text with whitespace runs as one space, and where each line starts in it
    for line in lines:
        starts.append(len(flat))
        flat += " ".join(line.split()) + " "
    at = flat.find(needle)
    if at < 0:
        return FactResult(claim, "false", "not in its code", path, first)
    index = max(i for i, start in enumerate(starts) if start <= at)
    return FactResult(claim, "true", "in its code", path, first + index)


def _module_assignment(resolver: Resolver, name: str) -> tuple[str, str, int] | None:
    """A module-level setting's statement (``torch.compiler.config:cache_key_tag``): its text, file and first line,
    so that a claim can name what the statement holds (the environment variable a ``Config`` reads)."""
    module, _, attr = name.partition(":")
    path = resolver.module_path(module) if attr.isidentifier() else None
    tree = resolver.parse(path) if path else None
    node = _last_assignment(tree.body, attr) if tree is not None else None
    if node is None:
        return None
    lines = resolver.lines(path)[node.lineno - 1:node.end_lineno or node.lineno]
    return "\n".join(lines), path, node.lineno


def _last_assignment(body: list[ast.stmt], name: str) -> ast.Assign | ast.AnnAssign | None:
    found = None
    for stmt in body:
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None \
                and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found = stmt
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt
    return found


def _default(node: ast.expr, resolver: Resolver, depth: int) -> object:
    """The default a config entry gets: a literal, or ``Config(default=...)``, or the target of an alias."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONFIG_CALLS:
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if "default" in keywords:
            return static_value(keywords["default"])
        alias = keywords.get("alias")
        if isinstance(alias, ast.Constant) and isinstance(alias.value, str) and depth < 4:
            target = evaluate(resolver, Claim(alias.value, None, "", alias.value), depth + 1)
            if target.status in ("true", "false"):
                return ast.literal_eval(target.actual)
            raise NotStatic(f"alias of {alias.value}: {target.reason or target.status}")
        raise NotStatic(f"{ast.unparse(node)[:80]} has no literal default")
    return static_value(node)


def static_value(node: ast.expr) -> object:
    """A literal, or arithmetic over literals (``64 * 1024``); anything else is NotStatic."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [static_value(e) for e in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {static_value(k): static_value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        value = static_value(node.operand)
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}[type(node.op)](value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = static_value(node.left), static_value(node.right)
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return _BINOPS[type(node.op)](left, right)
    raise NotStatic(f"{ast.unparse(node)[:80]} is not a literal")
