"""The page's "Compile time by your code": an icicle of Dynamo's tracing time per function, tables, kernels ↔ lines."""

from __future__ import annotations

from itertools import count

from tracers.analysis.by_code import ByCode, CodeNode, CompileCode
from tracers.analysis.kernels import Kernel, KernelMap
from tracers.analysis.report_model import build_report
from tracers.tracefile.events import Trace
from tracers.vocabulary.durations import duration

from .text import esc

WIDTH = 1000  # viewBox units; the drawing scales with the column, text with it
ROW = 18
MIN_LABEL = 40  # narrower boxes carry their name in the hover title only
MAX_ZOOMS = 8  # per compile: the widest boxes with callees below them get a view of their own
MIN_ZOOM, MAX_ZOOM = 0.02, 0.5  # ... if they hold this share of the compile's tracing: wider ones are wide already
PASS_THROUGH = 0.9  # a box whose one callee holds this much of it (a decorator's wrapper) zooms to nothing new
MIN_WIDTH = 1.0  # viewBox units (a thousandth of the view): thinner boxes are left out, their time in their caller
MAX_ROWS = 40
MAX_KERNELS = 200


def render_by_code(trace: Trace) -> str:
    """The old call form of :func:`by_code_html` (analyses the trace itself)."""
    return by_code_html(build_report(trace).by_code)


def by_code_html(split: ByCode) -> str:
    """Dynamo's tracing time by function (the page's ``code`` part)."""
    if not split.compiles:
        return '<div class="wt-by-code wt-trace-empty">Dynamo traced no code in this run.</div>'
    return f'<div class="wt-by-code"><h3>Compile time by your code</h3>{_tracing(split, count())}</div>'


def render_kernels(trace: Trace) -> str:
    """The old call form of :func:`kernels_html` (analyses the trace itself)."""
    return kernels_html(build_report(trace).kernels)


def kernels_html(kernels: KernelMap) -> str:
    """Each kernel and its user lines, both ways (the page's ``kernels`` part)."""
    if not kernels.kernels and not kernels.from_cache:
        return '<div class="wt-by-code wt-trace-empty">Inductor wrote no kernel in this run.</div>'
    return f'<div class="wt-by-code">{_kernels(kernels)}</div>'


def _tracing(split: ByCode, ids: count) -> str:
    if not split.compiles:
        return ""
    intro = ('<p class="wt-note">Dynamo\'s bytecode tracing, split by the function each translator run traced '
             '(the frame compiled, and every call Dynamo inlined into it). A box is as wide as the time spent '
             'tracing that function and what it called; its own time leaves out the nested calls, and the graph '
             'compile that runs inside tracing is not counted. Click a box to see its callees alone.</p>')
    parts = [intro]
    for rank, compile in enumerate(sorted(split.compiles, key=lambda compile: -compile.tracing_ns)):
        calls = sum(row.calls for row in compile.rows)
        parts.append(f'<details class="wt-by-code-compile" data-compile="{esc(compile.compile_id)}"'
                     f'{" open" if rank == 0 else ""}>'  # the compile that traced longest starts open
                     f'<summary><code>{esc(compile.compile_id)}</code> {esc(compile.frame)} '
                     f'<span class="wt-muted">tracing {esc(duration(compile.tracing_ns))}, '
                     f'{len(compile.rows)} functions in {calls} translator runs</span></summary>'
                     f'{_icicles(compile, ids)}{_table(compile)}</details>')
    return "".join(parts)


def _icicles(compile: CompileCode, ids: count) -> str:
    """The whole compile's icicle, then one hidden view per wide box that :target shows (no script needed)."""
    anchors: dict[int, str] = {}
    zoomable = sorted(_walk(compile.roots), key=lambda node: -node.inclusive_ns)
    total = max(compile.tracing_ns, 1)
    worth = [node for node in zoomable if node.children and MIN_ZOOM * total <= node.inclusive_ns <= MAX_ZOOM * total
             and max(child.inclusive_ns for child in node.children) < PASS_THROUGH * node.inclusive_ns]
    for node in worth[:MAX_ZOOMS]:
        anchors[id(node)] = f"wt-icicle-{next(ids)}"
    views = [f'<div class="wt-icicle">{_svg(compile.roots, total, anchors, "the whole compile")}</div>']
    for node in _walk(compile.roots):
        anchor = anchors.get(id(node))
        if anchor:
            views.append(f'<div class="wt-icicle wt-icicle-zoom" id="{anchor}"><p class="wt-muted">'
                         f'{esc(node.code)}: {esc(duration(node.inclusive_ns))} in {node.calls} '
                         f'call{"s" if node.calls != 1 else ""} · <a href="#">back to the whole compile</a></p>'
                         f'{_svg((node,), max(node.inclusive_ns, 1), anchors, node.code)}</div>')
    return "".join(views)


def _walk(nodes: tuple[CodeNode, ...]):  # noqa: ANN202 - a generator of CodeNode
    for node in nodes:
        yield node
        yield from _walk(node.children)


def _svg(roots: tuple[CodeNode, ...], total: int, anchors: dict[int, str], what: str) -> str:
    boxes: list[str] = []
    depth = _place(roots, 0.0, 0, total, anchors, boxes)
    height = depth * ROW
    return (f'<svg class="wt-icicle-svg" viewBox="0 0 {WIDTH} {height}" width="100%" role="img" '
            f'aria-label="Tracing time by function: {esc(what)}">{"".join(boxes)}</svg>')


def _place(nodes: tuple[CodeNode, ...], x: float, level: int, total: int, anchors: dict[int, str],
           boxes: list[str]) -> int:
    """Lay ``nodes`` out left to right from ``x`` on row ``level``; returns how many rows were used."""
    deepest = level
    for node in nodes:
        width = node.inclusive_ns / total * WIDTH
        if width < MIN_WIDTH:  # too thin to see: its time still counts in its caller's box
            x += width
            continue
        title = (f"{node.code}\n{node.calls}× · {duration(node.inclusive_ns)} with callees · "
                 f"{duration(node.exclusive_ns)} own")
        y = level * ROW
        label = ""
        if width >= MIN_LABEL:
            name = node.code.split(" (", 1)[0]
            room = int(width / 6.5)
            name = name if len(name) <= room else name[: max(room - 1, 1)] + "…"
            label = f'<text x="{x + 3:.1f}" y="{y + 13}">{esc(name)}</text>'
        box = (f'<rect x="{x:.1f}" y="{y}" width="{max(width - 0.5, 0.5):.1f}" height="{ROW - 1}" '
               f'class="wt-icicle-box{" wt-icicle-leaf" if not node.children else ""}"><title>{esc(title)}</title>'
               f'</rect>{label}')
        anchor = anchors.get(id(node))
        boxes.append(f'<a href="#{anchor}">{box}</a>' if anchor else box)
        deepest = max(deepest, _place(node.children, x, level + 1, total, anchors, boxes))
        x += width
    return max(deepest, level + 1) if nodes else deepest


def _table(compile: CompileCode) -> str:
    total = max(compile.tracing_ns, 1)
    rows = "".join(f'<tr><td><code>{esc(row.code)}</code></td><td class="wt-num">{row.calls}</td>'
                   f'<td class="wt-num">{esc(duration(row.inclusive_ns))}</td>'
                   f'<td class="wt-num">{esc(duration(row.exclusive_ns))}</td>'
                   f'<td class="wt-num">{row.exclusive_ns / total:.0%}</td></tr>' for row in compile.rows[:MAX_ROWS])
    more = (f'<p class="wt-muted">and {len(compile.rows) - MAX_ROWS} more functions (the trace file has them all)</p>'
            if len(compile.rows) > MAX_ROWS else "")
    return ('<table class="wt-by-code-table"><thead><tr><th>function traced</th><th>calls</th><th>with callees</th>'
            f'<th>own</th><th>own share</th></tr></thead><tbody>{rows}</tbody></table>{more}')


def _kernels(kernels: KernelMap) -> str:
    if not kernels.kernels and not kernels.from_cache:
        return ""
    parts = ['<h3>Your lines behind each kernel</h3>']
    for compile_id in kernels.from_cache:
        parts.append(f'<p class="wt-note">Compile {esc(compile_id)}: Inductor\'s output came from the cache (a warm '
                     'run), so no codegen ran: its kernels are tied to your lines from the comments of the output '
                     'code, which name the nodes of Triton kernels and extern calls, not of C++ kernels.</p>')
    if kernels.kernels:
        parts.append('<p class="wt-note">Each kernel Inductor wrote (C++ or Triton), and each extern call its '
                     'wrapper makes, with the FX nodes it computes and the lines of your code they came from '
                     '(the nodes\' stack traces). Codegen time is the time of the codegen steps that wrote it.</p>')
        if kernels.one_time_ns:
            parts.append(f'<p class="wt-note">Left out of the codegen times below: {esc(duration(kernels.one_time_ns))} '
                         'of one-time setup inside the first kernel\'s codegen, where Inductor learns which vector '
                         'instructions the CPU has by compiling a test program for each (once per process): it '
                         'belongs to no line of yours.</p>')
        parts.append(_kernel_table(kernels.kernels[:MAX_KERNELS]))
        parts.append(_line_table(kernels))
    return "".join(parts)


def _where(kernel: Kernel) -> str:
    items = []
    for line in kernel.lines:
        items.append(f'<li><code title="{esc(line.file)}">{esc(line.label)}</code> <span class="wt-muted">in '
                     f'{esc(line.function)}</span> <code>{esc(line.code)}</code></li>')
    return f'<ul class="wt-lines">{"".join(items)}</ul>' if items else '<span class="wt-muted">no stack recorded</span>'


def _kernel_table(kernels: tuple[Kernel, ...]) -> str:
    rows = []
    for kernel in kernels:
        codegen = ("extern call" if kernel.extern else "no codegen seen" if kernel.codegen_ns is None
                   else duration(kernel.codegen_ns))
        written = f" ×{kernel.written}" if kernel.written > 1 else ""
        rows.append(f'<tr><td><code>{esc(kernel.compile_id)}</code></td><td><code>{esc(kernel.name)}</code>'
                    f'{esc(written)}</td><td class="wt-num">{esc(codegen)}</td><td>{_where(kernel)}</td>'
                    f'<td class="wt-nodes"><code>{esc(_names(kernel.nodes))}</code></td></tr>')
    return ('<table class="wt-by-code-table wt-kernels"><thead><tr><th>compile</th><th>kernel</th><th>codegen</th>'
            f'<th>your lines</th><th>FX nodes</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _names(nodes: tuple[str, ...], most: int = 12) -> str:
    more = f" … +{len(nodes) - most}" if len(nodes) > most else ""
    return ", ".join(nodes[:most]) + more


def _line_table(kernels: KernelMap) -> str:
    rows = []
    for entry in kernels.by_line():
        names = ", ".join(dict.fromkeys(f"{kernel.name} ({kernel.compile_id})" for kernel in entry.kernels))
        rows.append(f'<tr><td><code title="{esc(entry.line.file)}">{esc(entry.line.label)}</code></td>'
                    f'<td><code>{esc(entry.line.code)}</code></td><td><code>{esc(names)}</code></td></tr>')
    return ('<details class="wt-by-line"><summary>The other way: each line of your code and its kernels</summary>'
            '<table class="wt-by-code-table"><thead><tr><th>line</th><th>code</th><th>kernels</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></details>')
