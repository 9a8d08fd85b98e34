"""Why an optional import failed, in one line: a package to install, or a file found that is not the one needed."""

from __future__ import annotations

import importlib.util
import os
import sys


def import_failure(what: str, error: ImportError) -> str:
    """``the HTML page needs jinja2: pip install jinja2`` where the module is nowhere; where one was found and failed
    (a script's own json.py in place of Python's, a broken install), which file, never "pip install json"."""
    name = error.name or ""
    top = name.split(".", 1)[0]
    if not top:
        return f"{what} cannot be made: {error}"
    origin = getattr(sys.modules.get(top), "__file__", None)
    if origin is None:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
    if top in sys.stdlib_module_names:
        if origin is not None and not _in_stdlib(origin):
            return (f"{what} cannot import Python's own {top}: {origin} stands in for it (a {top}.py beside the "
                    f"script or in the current directory?): {error}")
        return f"{what} cannot import Python's own {top}: {error}"
    if origin is None:
        return f"{what} needs {top}: pip install {top}"
    return f"{what} cannot import {name} from {origin}: {error}"


def _in_stdlib(origin: str) -> bool:
    """Whether a module's file is Python's own (its standard library, or a built-in or frozen module)."""
    if origin in ("built-in", "frozen"):
        return True
    library = os.path.dirname(os.__file__)
    return os.path.abspath(origin).startswith(library + os.sep)
