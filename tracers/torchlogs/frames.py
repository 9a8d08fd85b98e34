"""Names of compiled frames from what a log keeps (code name, file, first line), as the live tracer writes them."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


def frame_label(co_name: str, co_filename: str, first_line: int | None) -> str:
    """``Class.method (file.py:12)``: the live tracer names a frame by its code's qualified name, which a log
    does not hold; when the file is here, its source gives the class (``<locals>.`` parts dropped alike)."""
    name = _qualname_at(co_filename, first_line, co_name) if first_line else co_name
    line = f":{first_line}" if first_line else ""
    return f"{name} ({co_filename.rsplit('/', 1)[-1]}{line})"


def _qualname_at(filename: str, first_line: int, co_name: str) -> str:
    return _definitions(filename).get((first_line, co_name), co_name)


@lru_cache(maxsize=64)
def _definitions(filename: str) -> dict[tuple[int, str], str]:
    """(first line, name) -> qualified name of every function in a file; empty when it is not here."""
    try:
        tree = ast.parse(Path(filename).read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError):
        return {}
    found: dict[tuple[int, str], str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # co_firstlineno is the first decorator's line when there are decorators
                first = min([child.lineno] + [decorator.lineno for decorator in child.decorator_list])
                found[(first, child.name)] = prefix + child.name
                visit(child, "")  # what is defined inside a function is named from there on (``<locals>.`` dropped)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found
