"""A line of a notebook cell named as the notebook shows it, ``cell 3, line 2``, not by the file IPython made for it."""

from __future__ import annotations

import re
import sys

# IPython's own compiler names a cell <ipython-input-N-HASH> (N its execution count); ipykernel's writes each cell to a
# temporary file named by a hash of its code, <tmp>/ipykernel_PID/HASH.py, and keeps the count in its compiler's
# filename map (what IPython's tracebacks read to say "Cell In[N]").
_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>$")
_KERNEL_FILE = re.compile(r"(?:^|/)(ipykernel_\d+/\d+\.py)$")


def is_cell(path: str) -> bool:
    """Whether ``path`` is the file IPython or ipykernel compiled a notebook cell under."""
    return bool(_INPUT.search(path) or _KERNEL_FILE.search(path))


def cell_number(path: str) -> int | None:
    """The cell's execution count: from its name, or, for ipykernel's files, from the running kernel (a trace read
    elsewhere cannot tell it)."""
    match = _INPUT.search(path)
    if match:
        return int(match.group(1))
    match = _KERNEL_FILE.search(path)
    return _kernel_count(match.group(1)) if match else None


def cell_place(path: str, line: int) -> str | None:
    """``cell 3, line 2`` for a line of a notebook cell (``a notebook cell, line 2`` when its number is not known
    here); None for any other file."""
    if not is_cell(path):
        return None
    number = cell_number(path)
    return f"cell {number}, line {line}" if number is not None else f"a notebook cell, line {line}"


def _kernel_count(tail: str) -> int | None:
    """The execution count the live IPython shell gave the cell filed as ``ipykernel_PID/HASH.py``, if any. Read from
    ``sys.modules`` only: outside a notebook nothing is imported for it."""
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    try:
        shell = get_ipython() if get_ipython else None
        # IPython's CachingCompiler._filename_map (file name -> execution count): private, so read with care
        names = getattr(getattr(shell, "compile", None), "_filename_map", None)
        if not isinstance(names, dict):
            return None
        found = [number for name, number in names.items()
                 if isinstance(name, str) and name.replace("\\", "/").endswith("/" + tail)]
    except Exception:  # noqa: BLE001 - a shell in an odd state: the cell is said without its number
        return None
    return found[0] if found and isinstance(found[0], int) else None
