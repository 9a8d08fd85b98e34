"""Names of compiled frames from what a log keeps (code name, file, first line), as the live tracer writes them."""

from __future__ import annotations

import ast
import importlib.util
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from tracers.vocabulary.reading import allowed_roots, read_source


def source_roots(given: tuple[str, ...] = ()) -> tuple[Path, ...]:
    """Where a log's frames may be looked up: the directories given (``--source-root``), the current directory
    (where the user runs ``report``: their scripts) and the site-packages of the torch installed here."""
    spec = importlib.util.find_spec("torch")  # found, not imported
    torch_home = Path(spec.origin).parent.parent if spec is not None and spec.origin else None
    return allowed_roots(*given, Path.cwd(), torch_home)


def frame_label(co_name: str, co_filename: str, first_line: Any, roots: tuple[Path, ...] = ()) -> str:
    """``Class.method (file.py:12)``: the live tracer names a frame by its code's qualified name, which a log
    does not hold; when the file is a Python source under ``roots`` (directories the user allowed), its source
    gives the class (``<locals>.`` parts dropped alike). No other file a log names is opened."""
    if not (isinstance(first_line, int) and not isinstance(first_line, bool) and first_line > 0):
        first_line = None
    name = _definitions(co_filename, roots).get((first_line, co_name), co_name) if first_line and roots else co_name
    line = f":{first_line}" if first_line else ""
    return f"{name} ({co_filename.rsplit('/', 1)[-1]}{line})"


# A frame of torch's own code that only calls what it was handed (torch.compile wraps a module of torch.nn in
# torch/_dynamo/external_utils.py's wrap_inline, whose ``inner`` calls its local ``fn``): the user's function is
# that local, which the compile's guards name with its type (``source=L['fn'], …, type=<class '…Linear'>``).
_TORCH_FILE = re.compile(r"(?:^|[/\\])torch[/\\]")
_WRAPPED = re.compile(r"source=L\['(?:fn|func)'\], [^\n]*?type=<class '([\w.]+)'>")
_NOT_A_MODULE = frozenset({"function", "builtin_function_or_method", "method", "functools.partial"})


def is_torch_file(co_filename: str) -> bool:
    """Whether a compiled frame's code is torch's own (a wrapper of torch's around the user's callable)."""
    return _TORCH_FILE.search(co_filename) is not None


def wrapped_label(label: str, guards: str | None) -> str:
    """``Linear.forward (linear.py) via inner (external_utils.py:67)`` for torch's wrapper frame whose guards name the
    module it calls; the label as it was where they name none (a plain function's type says nothing of it)."""
    found = _WRAPPED.search(guards or "")
    if found is None or found[1] in _NOT_A_MODULE:
        return label
    module, _, cls = found[1].rpartition(".")
    where = f" ({module.rsplit('.', 1)[-1]}.py)" if module else ""
    return f"{cls}.forward{where} via {label}"


@lru_cache(maxsize=64)
def _definitions(filename: str, roots: tuple[Path, ...]) -> dict[tuple[int, str], str]:
    """(first line, name) -> qualified name of every function in a file; empty when it is not an allowed source."""
    text = read_source(filename, roots)
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
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

    try:
        visit(tree, "")
    except RecursionError:  # an expression nested thousands deep: the names found so far
        pass
    return found
