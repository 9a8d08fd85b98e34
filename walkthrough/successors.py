"""Successor hints for a symbol that is gone: the same name elsewhere, and the most similar code."""

from __future__ import annotations

import ast
import difflib
import posixpath
import re
from dataclasses import dataclass

from walkthrough.symbols import Resolver, iter_definitions

MAX_SAME_NAME = 5
MAX_SIMILAR = 3
MIN_SCORE = 0.5


@dataclass(frozen=True)
class Successor:
    qualname: str  # module:qualname in the new tree
    file: str
    start: int
    end: int
    reason: str  # "same name" | "similar code"
    score: float = 1.0


def _module_of(path: str) -> str:
    module = path.removesuffix(".py").replace("/", ".")
    return module.removesuffix(".__init__")


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def similarity(old: list[str], new: list[str]) -> float:
    """How much of one body is the other: plain ratio, or containment for a part split off a larger whole."""
    if not old or not new:
        return 0.0
    # Cheap upper bound first: line sets that barely meet cannot score.
    common = len(set(old) & set(new))
    if common / min(len(set(old)), len(set(new))) < 0.3:
        return 0.0
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    ratio = 2 * matched / (len(old) + len(new))
    # A function split in two: each half is mostly old code, but only half of it. Tiny candidates
    # (a one-line wrapper) are discounted so they do not win on containment alone.
    containment = matched / len(new) * min(1.0, 2 * len(new) / len(old))
    return max(ratio, containment)


def find_successors(resolver: Resolver, old_name: str, old_file: str, old_normalized: str,
                    old_kind: str) -> tuple[Successor, ...]:
    """Hints, best first: definitions with the same last name part, then code most like the old one."""
    leaf = old_name.rpartition(":")[2].split(".")[-1]
    pattern = re.compile(rf"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+{re.escape(leaf)}\b", re.MULTILINE)
    same_name: list[Successor] = []
    name_files = []
    for path in resolver.source.python_files():
        text = resolver.source.read(path) or ""
        if leaf not in text or not pattern.search(text):
            continue  # the name only in a string or a comment is not a definition
        name_files.append(path)
        tree = resolver.parse(path)
        if tree is None:
            continue
        for qual, node, _ in iter_definitions(tree):
            if qual.split(".")[-1] == leaf:
                name = f"{_module_of(path)}:{qual}"
                if name != old_name:
                    same_name.append(Successor(name, path, _start(node), node.end_lineno or node.lineno, "same name"))
    old_dir = posixpath.dirname(old_file)
    same_name.sort(key=lambda s: (s.file != old_file, posixpath.dirname(s.file) != old_dir, s.file, s.start))
    similar = _similar(resolver, old_name, old_file, old_normalized, old_kind, name_files)
    seen = {s.qualname for s in same_name[:MAX_SAME_NAME]}
    return tuple(same_name[:MAX_SAME_NAME]) + tuple(s for s in similar if s.qualname not in seen)


def _start(node: ast.AST) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])


def _similar(resolver: Resolver, old_name: str, old_file: str, old_normalized: str, old_kind: str,
             extra_files: list[str]) -> list[Successor]:
    """The definitions in the old file (or, when the file is gone, its directory) most like the old code."""
    if not old_normalized:
        return []
    old_lines = _lines(old_normalized)
    files = [old_file] if resolver.source.read(old_file) is not None else [
        p for p in resolver.source.python_files() if posixpath.dirname(p) == posixpath.dirname(old_file)]
    want_class = old_kind == "class"
    scored = []
    for path in dict.fromkeys([*files, *extra_files]):
        tree = resolver.parse(path)
        if tree is None:
            continue
        for qual, node, _ in iter_definitions(tree):
            if isinstance(node, ast.ClassDef) != want_class:
                continue
            span = (node.end_lineno or node.lineno) - node.lineno + 1
            if span * 4 < len(old_lines) or span > len(old_lines) * 4:
                continue  # far too small or too large to be the successor
            score = similarity(old_lines, _lines(ast.unparse(node)))
            name = f"{_module_of(path)}:{qual}"
            if score >= MIN_SCORE and name != old_name:
                scored.append(Successor(name, path, _start(node), node.end_lineno or node.lineno,
                                        "similar code", round(score, 2)))
    scored.sort(key=lambda s: -s.score)
    return scored[:MAX_SIMILAR]
