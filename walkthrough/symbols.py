"""Resolve ``module:qualname`` to a file and line span in a torch tree, statically, with ast."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from contextlib import contextmanager
from functools import cached_property

from walkthrough.source import TorchSource
from walkthrough.toplevel import Block, Scan, scan

DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCK_ITEMS = (ast.stmt, ast.excepthandler, ast.match_case)  # what a body, handlers or cases hold
_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty"}
_ACCESSORS = {"setter", "getter", "deleter"}


class SymbolNotFound(Exception):
    """A qualified name that does not resolve; ``reason`` says where the lookup stopped."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


@dataclass(frozen=True)
class Symbol:
    """One definition in one torch tree, with the hashes that verify compares."""

    name: str  # module:qualname, as asked for
    path: str  # e.g. torch/_dynamo/convert_frame.py
    start: int  # first line, decorators included
    end: int  # last line
    kind: str  # function | method | property | class
    text: str  # the raw lines start..end
    normalized: str  # ast.unparse without docstrings: comments and layout do not count
    defined_in: str = ""  # module:qualname of the base class's definition when inherited

    @property
    def hash(self) -> str:
        return digest(self.normalized)

    @property
    def raw_hash(self) -> str:
        return digest(self.text)

    @property
    def inherited(self) -> bool:
        return bool(self.defined_in)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def split_name(name: str) -> tuple[str, str]:
    """``torch._dynamo.convert_frame:_compile`` → module, qualname; a usage error when malformed."""
    module, sep, qualname = name.partition(":")
    if not sep or not module or not qualname or not all(p.isidentifier() for p in module.split(".")) \
            or not all(p.isidentifier() for p in qualname.split(".")):
        raise ValueError(f"{name!r}: expected module:qualname, e.g. torch._dynamo.convert_frame:_compile")
    return module, qualname


@contextmanager
def docstrings_removed(node: ast.AST) -> Iterator[ast.AST]:
    """The tree without docstrings, so that editing one never counts as a code change.

    Done in place and put back on exit: the parsed trees are shared and large, and a deep copy of a
    big function per lookup dominated verify's time."""
    removed: list[tuple[ast.AST, list[ast.stmt]]] = []
    try:
        for child in _scopes(node):
            if child.body:
                first = child.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                        and isinstance(first.value.value, str):
                    removed.append((child, child.body))
                    child.body = child.body[1:] or [ast.Pass()]
        yield node
    finally:
        for child, body in reversed(removed):
            child.body = body


def _scopes(node: ast.AST) -> Iterator[DefNode | ast.Module]:
    """Every def, class and module at or under ``node``, looking only through lists of statements
    (defs sit nowhere else): walking every expression node as well took most of normalize's time."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (*_DEF_TYPES, ast.Module)):
            yield current  # the caller may drop its docstring before its body is read below
        for _, value in ast.iter_fields(current):
            if isinstance(value, list) and value and isinstance(value[0], _BLOCK_ITEMS):
                stack.extend(value)


def normalize(nodes: list[DefNode]) -> str:
    parts = []
    for node in nodes:
        with docstrings_removed(node) as stripped:
            parts.append(ast.unparse(stripped))
    return "\n".join(parts)


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _decorator_names(node: DefNode) -> list[str]:
    names = []
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        names.append(ast.unparse(target))
    return names


def _is_accessor(node: DefNode) -> bool:
    """``@name.setter`` and friends: the later halves of a property."""
    return any(d.rsplit(".", 1)[-1] in _ACCESSORS and d.split(".")[0] == node.name
               for d in _decorator_names(node))


def _is_property(node: DefNode) -> bool:
    return any(d.rsplit(".", 1)[-1] in _PROPERTY_DECORATORS for d in _decorator_names(node)) or _is_accessor(node)


def _walk_body(body: list[ast.stmt]):
    """Statements of a scope, looking through if/try/with blocks (conditional definitions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or type(stmt).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                yield from _walk_body(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _walk_body(handler.body)


def find_definition(body: list[ast.stmt], name: str) -> list[DefNode]:
    """The definition(s) of ``name`` in one scope: the last one wins, a property keeps all its accessors."""
    defs = [s for s in _walk_body(body) if isinstance(s, _DEF_TYPES) and s.name == name]
    if not defs:
        return []
    group = [defs[-1]]
    index = len(defs) - 2
    while index >= 0 and _is_accessor(group[0]):
        group.insert(0, defs[index])
        index -= 1
    return group


@dataclass(frozen=True)
class _Found:
    module: str
    qualname: str
    nodes: tuple[DefNode, ...]
    owner_is_class: bool
    line_offset: int = 0  # added to the nodes' line numbers: they were parsed from a cut of the file


class Resolver:
    """Static lookups in one torch tree; parsed modules, cut-out definitions and results are cached.

    With ``chunked`` (the default) a lookup parses only the statements that define the name it asks
    for: a class member's defs alone, else the top-level def/class. Where the file's text leaves any
    doubt (an inherited or assigned name, a conditional definition, an odd file) it parses the whole
    module. Parsing whole modules was most of verify's time; the answers are the same.
    """

    def __init__(self, source: TorchSource, chunked: bool = True) -> None:
        self.source = source
        self.chunked = chunked
        self._trees: dict[str, ast.Module | None] = {}
        self._scans: dict[str, Scan | None] = {}
        self._cuts: dict[tuple[str, str], tuple[list[ast.stmt], int] | None] = {}  # (path, qualname)
        self._symbols: dict[str, Symbol | str] = {}  # a Symbol, or why the name does not resolve

    @cached_property
    def version(self) -> str:
        return self.source.version

    def module_path(self, module: str) -> str | None:
        """The file that defines a module: ``a/b.py`` or ``a/b/__init__.py``."""
        base = module.replace(".", "/")
        for path in (f"{base}.py", f"{base}/__init__.py"):
            if self.source.read(path) is not None:
                return path
        return None

    def parse(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            text = self.source.read(path)
            try:
                self._trees[path] = None if text is None else ast.parse(text)
            except (SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def lines(self, path: str) -> list[str]:
        return (self.source.read(path) or "").splitlines()

    def _scan(self, path: str) -> Scan | None:
        if path not in self._scans:
            text = self.source.read(path)
            self._scans[path] = None if text is None else scan(text)
        return self._scans[path]

    def _cut(self, path: str, qualname: str) -> tuple[list[ast.stmt], int] | None:
        """The statements that define ``qualname`` (a top-level name, or ``Class.member``) parsed on
        their own, with the line offset to add to their line numbers; None where that is not safe."""
        key = (path, qualname)
        if key not in self._cuts:
            self._cuts[key] = self._parse_cut(path, qualname)
        return self._cuts[key]

    def _parse_cut(self, path: str, qualname: str) -> tuple[list[ast.stmt], int] | None:
        found = self._scan(path)
        if found is None:
            return None
        owner, _, name = qualname.rpartition(".")
        block: Block | None = found.module
        if owner:
            indexes = found.module.defs.get(owner, [])
            if len(indexes) != 1 or owner in found.module.conditional:
                return None
            block = found.class_body(indexes[0])
        span = block.span(name) if block is not None else None
        if span is None:
            return None
        first, end = span
        text = "\n".join(found.lines[first:end]) + "\n"
        if block.indent:
            text = "if 1:\n" + text  # an indented run of statements parses as the body of an if
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None  # e.g. a cut that ends inside a string or bracket: it never parses
        body = tree.body
        offset = first
        if block.indent:
            if len(body) != 1 or not isinstance(body[0], ast.If):
                return None
            body, offset = body[0].body, first - 1
        # The parse must agree with the scan: the cut starts a statement, and holds every def of the name.
        if not body or _first_line(body[0]) + offset != first + 1:
            return None
        if sum(isinstance(s, _DEF_TYPES) and s.name == name for s in body) != len(block.defs[name]):
            return None
        # An offset rather than ast.increment_lineno: renumbering every node of a large class cost
        # nearly as much as parsing it.
        return body, offset

    def resolve(self, name: str) -> Symbol:
        """The definition of ``module:qualname``; raises SymbolNotFound with the reason."""
        module, qualname = split_name(name)
        if name not in self._symbols:
            try:
                self._symbols[name] = self._resolve(name, module, qualname)
            except SymbolNotFound as exc:
                self._symbols[name] = exc.reason
        found = self._symbols[name]
        if isinstance(found, str):
            raise SymbolNotFound(name, found)
        return found

    def _resolve(self, name: str, module: str, qualname: str) -> Symbol:
        found = self._lookup(module, qualname, name)
        path = self.module_path(found.module)
        assert path is not None  # _lookup only returns definitions it parsed
        nodes = list(found.nodes)
        start = _first_line(nodes[0]) + found.line_offset
        end = (nodes[-1].end_lineno or nodes[-1].lineno) + found.line_offset
        text = "\n".join(self.lines(path)[start - 1:end])
        if isinstance(nodes[0], ast.ClassDef):
            kind = "class"
        elif found.owner_is_class:
            kind = "property" if _is_property(nodes[0]) else "method"
        else:
            kind = "function"
        defined = f"{found.module}:{found.qualname}"
        return Symbol(name, path, start, end, kind, text, normalize(nodes),
                      defined_in="" if defined == name else defined)

    def _lookup(self, module: str, qualname: str, name: str) -> _Found:
        path = self.module_path(module)
        if path is None:
            raise SymbolNotFound(name, f"module {module} is not in torch {self.version}")
        if self.chunked and path not in self._trees:
            found = self._lookup_chunk(module, qualname, path)
            if found is not None:
                return found
        tree = self.parse(path)
        if tree is None:
            raise SymbolNotFound(name, f"{path} does not parse")
        body: list[ast.stmt] = tree.body
        parts = qualname.split(".")
        owner: ast.ClassDef | None = None
        owner_module, owner_qual = module, ""
        for index, part in enumerate(parts):
            nodes = find_definition(body, part)
            if not nodes and _assigned(body, part):
                # e.g. ``__call__ = _call_impl``: a binding, not a definition with lines of its own.
                where = owner_qual or module
                raise SymbolNotFound(name, f"{where}.{part} is bound by an assignment, not a def or class")
            if not nodes and owner is not None:
                # Not in the class body: an inherited name is reported as such, never as the subclass's.
                base = self._find_in_bases(owner_module, owner, part, set())
                if base is None:
                    raise SymbolNotFound(name, f"{owner_qual} has no {part} (not defined nor inherited in torch)")
                rest = ".".join(parts[index + 1:])
                if rest:
                    base_module, base_qual, _ = base
                    return self._lookup(base_module, f"{base_qual}.{rest}", name)
                base_module, base_qual, base_nodes = base
                return _Found(base_module, base_qual, tuple(base_nodes), True)
            if not nodes:
                where = owner_qual or module
                raise SymbolNotFound(name, f"{where} defines no {part}")
            node = nodes[-1]
            current = f"{owner_qual}.{part}" if owner_qual else part
            if index == len(parts) - 1:
                return _Found(module, qualname, tuple(nodes), owner is not None)
            if not isinstance(node, ast.ClassDef):
                raise SymbolNotFound(name, f"{current} is a function, not a class")
            owner, owner_qual, body = node, current, node.body
        raise SymbolNotFound(name, "empty qualname")

    def _lookup_chunk(self, module: str, qualname: str, path: str) -> _Found | None:
        """``_lookup``'s answer from cut-out definitions alone, or None when that needs more."""
        parts = qualname.split(".")
        # A member's own defs where they can be cut out of its class, else the whole top-level def/class.
        cut = self._cut(path, ".".join(parts[:2])) if len(parts) > 1 else None
        index = 1
        if cut is None:
            cut, index = self._cut(path, parts[0]), 0
        if cut is None:
            return None
        body, line_offset = cut
        for position in range(index, len(parts)):
            nodes = find_definition(body, parts[position])
            if not nodes:
                return None  # inherited, assigned or absent: the whole-module lookup says which
            if position == len(parts) - 1:
                return _Found(module, qualname, tuple(nodes), position > 0, line_offset)
            if not isinstance(nodes[-1], ast.ClassDef):
                return None
            body = nodes[-1].body
        return None

    def _find_in_bases(self, module: str, cls: ast.ClassDef, attr: str, seen: set[tuple[str, str]]):
        """Depth-first over the bases that live in torch: (module, qualname, nodes) of ``attr``."""
        for base in cls.bases:
            target = self.resolve_class(module, base)
            if target is None:
                continue
            base_module, base_qual, base_cls = target
            if (base_module, base_qual) in seen:
                continue
            seen.add((base_module, base_qual))
            nodes = find_definition(base_cls.body, attr)
            if nodes:
                return base_module, f"{base_qual}.{attr}", nodes
            deeper = self._find_in_bases(base_module, base_cls, attr, seen)
            if deeper is not None:
                return deeper
        return None

    def resolve_class(self, module: str, expr: ast.expr, depth: int = 0):
        """Where a base-class expression points inside torch: (module, qualname, ClassDef) or None."""
        if depth > 8:
            return None
        if isinstance(expr, ast.Subscript):  # Generic[T], SomeBase[int]
            expr = expr.value
        dotted = _dotted(expr)
        if dotted is None:
            return None
        head, *rest = dotted.split(".")
        binding = self._binding(module, head)
        if binding is None:
            return None
        kind, target = binding
        if kind == "class":
            if rest:
                return None
            return target
        if kind == "module":
            return self._class_in_module(f"{target}.{'.'.join(rest)}" if rest else target, depth)
        if kind == "name":  # imported from a module, maybe re-exported: follow it
            from_module, original = target
            full = ".".join([original, *rest])
            return self._class_by_path(from_module, full, depth + 1)
        return None

    def _class_in_module(self, dotted: str, depth: int):
        """``pkg.mod.Class`` (or ``pkg.mod.Outer.Inner``): split at the longest module prefix in the tree."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if self.module_path(module) is not None:
                return self._class_by_path(module, ".".join(parts[cut:]), depth + 1)
        return None

    def _class_by_path(self, module: str, qualname: str, depth: int):
        head, *rest = qualname.split(".")
        path = self.module_path(module)
        tree = self.parse(path) if path else None
        if tree is None:
            return None
        nodes = find_definition(tree.body, head)
        if nodes and isinstance(nodes[-1], ast.ClassDef):
            cls, qual = nodes[-1], head
            for part in rest:
                inner = find_definition(cls.body, part)
                if not inner or not isinstance(inner[-1], ast.ClassDef):
                    return None
                cls, qual = inner[-1], f"{qual}.{part}"
            return module, qual, cls
        # Not defined here: maybe imported (a re-export in a package __init__).
        expr = ast.parse(qualname, mode="eval").body
        return self.resolve_class(module, expr, depth + 1)

    def _binding(self, module: str, name: str):
        """What a top-level name means in a module: a class, a module, or a name imported from one."""
        path = self.module_path(module)
        tree = self.parse(path) if path else None
        if tree is None:
            return None
        nodes = find_definition(tree.body, name)
        if nodes and isinstance(nodes[-1], ast.ClassDef):
            return "class", (module, name, nodes[-1])
        is_package = path.endswith("/__init__.py")
        for stmt in _walk_body(tree.body):
            if isinstance(stmt, ast.ImportFrom):
                source_module = _absolute(module, is_package, stmt.module, stmt.level)
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        submodule = f"{source_module}.{alias.name}"
                        if self.module_path(submodule) is not None:
                            return "module", submodule
                        return "name", (source_module, alias.name)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname == name:
                        return "module", alias.name
                    if alias.asname is None and alias.name.split(".")[0] == name:
                        return "module", name
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
                # An alias such as ``Base = _Base``: follow it once.
                dotted = _dotted(stmt.value)
                if dotted and dotted.split(".")[0] != name:
                    inner = self.resolve_class(module, stmt.value)
                    if inner is not None:
                        return "class", inner
        return None


def _assigned(body: list[ast.stmt], name: str) -> bool:
    for stmt in _walk_body(body):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, ast.AnnAssign) and stmt.value is not None else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return None if inner is None else f"{inner}.{expr.attr}"
    return None


def _absolute(module: str, is_package: bool, target: str | None, level: int) -> str:
    """The absolute module of ``from <level dots><target> import ...`` written inside ``module``."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, target] if target else parts)


def iter_definitions(tree: ast.Module):
    """Every function and class in a module with its qualname (no function locals), in file order."""
    def walk(body: list[ast.stmt], prefix: str, in_class: bool):
        for stmt in _walk_body(body):
            if isinstance(stmt, _DEF_TYPES):
                qual = f"{prefix}.{stmt.name}" if prefix else stmt.name
                yield qual, stmt, in_class
                if isinstance(stmt, ast.ClassDef):
                    yield from walk(stmt.body, qual, True)
    yield from walk(tree.body, "", False)


def resolver_for(source: TorchSource) -> Resolver:
    """One cached resolver per source object, so parsed modules are shared by every caller."""
    resolver = getattr(source, "_walkthrough_resolver", None)
    if resolver is None:
        resolver = Resolver(source)
        source._walkthrough_resolver = resolver  # type: ignore[attr-defined]
    return resolver
