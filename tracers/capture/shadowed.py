"""Modules imported before the script ran (by the tracer, or torch) that a file in the script's own folder shadows: a
``json.py`` beside the script is what plain Python would import, but the tracer's ``json`` is already loaded."""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

# Never the script's to shadow: what starts every Python, and the program itself.
_STARTUP = frozenset({"__main__", "sitecustomize", "usercustomize"})


def shadowed(folder: Path) -> list[str]:
    """The names of loaded top-level modules that ``folder`` holds a module or package of, another file than the one
    loaded (the tracer's own package run from its checkout is itself, not a shadow)."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    suffixes = tuple(importlib.machinery.all_suffixes())
    names: dict[str, Path] = {}
    for entry in entries:
        path = folder / entry
        suffix = next((suffix for suffix in suffixes if entry.endswith(suffix)), None)
        if suffix is not None and entry[:-len(suffix)].isidentifier():
            names.setdefault(entry[:-len(suffix)], path)
        elif entry.isidentifier() and (path / "__init__.py").is_file():
            names.setdefault(entry, path / "__init__.py")
    found = []
    for name in sorted(names.keys() & sys.modules.keys() - _STARTUP):
        loaded = getattr(sys.modules[name], "__file__", None)
        if loaded is None or not _same(Path(loaded), names[name]):
            found.append(name)
    return found


def _same(loaded: Path, beside: Path) -> bool:
    """The same module: the same file, or a package's folder (its __init__ and a compiled form live there too)."""
    try:
        return loaded.resolve().parent == beside.resolve().parent
    except OSError:
        return False


def warning(folder: Path, names: list[str]) -> str:
    """The one line that says so, naming at most a few."""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (f"{folder} holds modules named like ones the tracer or torch imported before the script ran ({shown}): "
            "under the tracer the script gets those, where plain python would import its own files")
