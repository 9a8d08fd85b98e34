"""The page's "Compile time by your code" (templates/by_code.html, kernels.html): an icicle of Dynamo's tracing time
per function, tables, kernels ↔ lines."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count

from markupsafe import Markup

from tracers.analysis.by_code import ByCode, CompileCode
from tracers.analysis.kernels import Kernel, KernelMap, UserLine
from tracers.analysis.report_model import build_report
from tracers.tracefile.events import Trace
from tracers.vocabulary.durations import duration

from .icicle import icicle_svg, walk
from .templating import render, safe

MAX_ZOOMS = 8  # per compile: the widest boxes with callees below them get a view of their own
MIN_ZOOM, MAX_ZOOM = 0.02, 0.5  # ... if they hold this share of the compile's tracing: wider ones are wide already
PASS_THROUGH = 0.9  # a box whose one callee holds this much of it (a decorator's wrapper) zooms to nothing new
MAX_ROWS = 40
MAX_KERNELS = 200


@dataclass(frozen=True)
class Zoom:
    """A hidden view of one wide box and its callees, which :target shows (no script needed)."""

    anchor: str
    code: str
    time: str
    calls: int
    svg: Markup


@dataclass(frozen=True)
class CompileView:
    compile_id: str
    frame: str
    tracing: str
    rows_total: int
    calls: int  # translator runs
    whole: Markup  # the whole compile's icicle
    zooms: tuple[Zoom, ...]
    rows: tuple[tuple[str, int, str, str, str], ...]  # (function, calls, with callees, own, own share)
    more: int  # functions left out of the table


@dataclass(frozen=True)
class KernelRow:
    compile_id: str
    name: str
    written: str  # `` ×2`` where it was written more than once
    codegen: str
    lines: tuple[UserLine, ...]
    nodes: str


@dataclass(frozen=True)
class KernelsView:
    from_cache: tuple[str, ...]  # compiles whose output came from the cache
    kernels: tuple[KernelRow, ...]
    one_time: str  # one-time setup left out of the codegen times; "": none
    by_line: tuple[tuple[UserLine, str], ...]  # each line of the user's code and its kernels' names


def render_by_code(trace: Trace) -> str:
    """The old call form of :func:`by_code_html` (analyses the trace itself)."""
    return by_code_html(build_report(trace).by_code)


def by_code_html(split: ByCode) -> str:
    """Dynamo's tracing time by function (the page's ``code`` part); the compile that traced longest starts open."""
    ids = count()
    compiles = tuple(_compile(compile, ids) for compile in sorted(split.compiles, key=lambda c: -c.tracing_ns))
    return render("by_code.html", compiles=compiles)


def kernels_html(kernels: KernelMap) -> str:
    """Each kernel and its user lines, both ways (the page's ``kernels`` part)."""
    rows = tuple(_kernel(kernel) for kernel in kernels.kernels[:MAX_KERNELS])
    by_line = tuple((entry.line, ", ".join(dict.fromkeys(f"{kernel.name} ({kernel.compile_id})"
                                                          for kernel in entry.kernels)))
                    for entry in kernels.by_line()) if kernels.kernels else ()
    one_time = duration(kernels.one_time_ns) if kernels.one_time_ns else ""
    return render("kernels.html", view=KernelsView(tuple(kernels.from_cache), rows, one_time, by_line))


def _compile(compile: CompileCode, ids: count) -> CompileView:
    total = max(compile.tracing_ns, 1)
    rows = tuple((row.code, row.calls, duration(row.inclusive_ns), duration(row.exclusive_ns),
                  f"{row.exclusive_ns / total:.0%}") for row in compile.rows[:MAX_ROWS])
    whole, zooms = _icicles(compile, ids)
    return CompileView(compile.compile_id, compile.frame, duration(compile.tracing_ns), len(compile.rows),
                       sum(row.calls for row in compile.rows), whole, zooms, rows, max(0, len(compile.rows) - MAX_ROWS))


def _icicles(compile: CompileCode, ids: count) -> tuple[Markup, tuple[Zoom, ...]]:
    """The whole compile's icicle, then one hidden view per wide box."""
    anchors: dict[int, str] = {}
    zoomable = sorted(walk(compile.roots), key=lambda node: -node.inclusive_ns)
    total = max(compile.tracing_ns, 1)
    worth = [node for node in zoomable if node.children and MIN_ZOOM * total <= node.inclusive_ns <= MAX_ZOOM * total
             and max(child.inclusive_ns for child in node.children) < PASS_THROUGH * node.inclusive_ns]
    for node in worth[:MAX_ZOOMS]:
        anchors[id(node)] = f"wt-icicle-{next(ids)}"
    whole = safe(icicle_svg(compile.roots, total, anchors, "the whole compile"))
    zooms = tuple(Zoom(anchors[id(node)], node.code, duration(node.inclusive_ns), node.calls,
                       safe(icicle_svg((node,), max(node.inclusive_ns, 1), anchors, node.code)))
                  for node in walk(compile.roots) if id(node) in anchors)
    return whole, zooms


def _kernel(kernel: Kernel) -> KernelRow:
    codegen = ("extern call" if kernel.extern else "no codegen seen" if kernel.codegen_ns is None
               else duration(kernel.codegen_ns))
    return KernelRow(kernel.compile_id, kernel.name, f" ×{kernel.written}" if kernel.written > 1 else "", codegen,
                     tuple(kernel.lines), _names(kernel.nodes))


def _names(nodes: tuple[str, ...], most: int = 12) -> str:
    more = f" … +{len(nodes) - most}" if len(nodes) > most else ""
    return ", ".join(nodes[:most]) + more
