"""Compile time by your code in two traces, side by side: tracing time per function and kernels per user line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracers.tracefile.events import Trace

from .by_code import by_code
from .kernels import KernelMap, kernel_map

TOP = 12


@dataclass(frozen=True)
class CodeDiffRow:
    """One function's tracing time and calls in each trace (None: not traced there)."""

    code: str
    a_ns: int | None
    b_ns: int | None
    a_calls: int
    b_calls: int


@dataclass(frozen=True)
class LineDiffRow:
    """One user line and the kernels it went into in each trace."""

    line: str  # ``file.py:12``
    a_kernels: tuple[str, ...]
    b_kernels: tuple[str, ...]


@dataclass(frozen=True)
class CodeDiff:
    a_tracing_ns: int
    b_tracing_ns: int
    rows: tuple[CodeDiffRow, ...]  # largest change first
    lines: tuple[LineDiffRow, ...]  # only lines whose kernels differ
    # Sides whose kernels were read from the output code's comments (no codegen seen): C++ kernels are missing.
    from_comments: tuple[bool, bool] = (False, False)


def code_diff(a: Trace, b: Trace, as_a: Callable[[str], str] | None = None) -> CodeDiff:
    """``as_a``: B's names as A's, where the two runs' scripts have different names (diff.py's ``Renamed``)."""
    as_a = as_a or (lambda text: text)
    split_a, split_b = by_code(a), by_code(b)
    rows_a = {row.code: row for row in split_a.rows()}
    rows_b = {as_a(row.code): row for row in split_b.rows()}
    rows = [CodeDiffRow(code, rows_a[code].inclusive_ns if code in rows_a else None,
                        rows_b[code].inclusive_ns if code in rows_b else None,
                        rows_a[code].calls if code in rows_a else 0, rows_b[code].calls if code in rows_b else 0)
            for code in dict.fromkeys([*rows_a, *rows_b])]
    rows.sort(key=lambda row: -abs((row.b_ns or 0) - (row.a_ns or 0)))
    map_a, map_b = kernel_map(a), kernel_map(b)
    lines_a = _kernels_by_line(map_a)
    lines_b = {as_a(line): names for line, names in _kernels_by_line(map_b).items()}
    lines = tuple(LineDiffRow(line, lines_a.get(line, ()), lines_b.get(line, ()))
                  for line in dict.fromkeys([*lines_a, *lines_b])
                  if lines_a.get(line, ()) != lines_b.get(line, ()))
    comments = tuple(any(kernel.source == "output code" for kernel in side.kernels) for side in (map_a, map_b))
    return CodeDiff(split_a.tracing_ns, split_b.tracing_ns, tuple(rows), lines, comments)


def _kernels_by_line(kernels: KernelMap) -> dict[str, tuple[str, ...]]:
    return {entry.line.label: tuple(dict.fromkeys(kernel.name for kernel in entry.kernels))
            for entry in kernels.by_line()}
