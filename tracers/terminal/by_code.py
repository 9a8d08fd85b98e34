"""The summary's "Compile time by your code" section: tracing time by function, and the lines behind each kernel."""

from __future__ import annotations

from tracers.analysis.by_code import ByCode
from tracers.analysis.kernels import KernelMap
from tracers.analysis.report_model import Report, build_report
from tracers.tracefile.events import Trace
from tracers.vocabulary.durations import duration

from .style import Style

TOP_COMPILES = 5  # the compiles with the most tracing time; the page and the API have them all
TOP_ROWS = 8
TOP_KERNELS = 10


def render(trace: Trace, style: Style, width: int = 100) -> list[str]:
    """The old call form of :func:`section` (analyses the trace itself)."""
    return section(build_report(trace), style, width)


def section(report: Report, style: Style, width: int = 100) -> list[str]:
    """The section's lines."""
    split, kernels = report.by_code, report.kernels
    lines: list[str] = []
    if split.compiles:
        lines += ["", style.bold("Compile time by your code") + style.dim(
            "  (Dynamo's bytecode tracing split by the function it traced: inclusive, own, calls)")]
        lines += _tracing_lines(split, style)
    if kernels.kernels or kernels.from_cache:
        lines += ["", style.bold("Your lines behind each kernel") + style.dim(
            "  (kernel, codegen time, the user line its FX nodes came from)")]
        lines += _kernel_lines(kernels, style, width)
    return lines


def _tracing_lines(split: ByCode, style: Style) -> list[str]:
    lines = []
    ranked = sorted(split.compiles, key=lambda compile: -compile.tracing_ns)
    for compile in ranked[:TOP_COMPILES]:
        lines.append(f"  {compile.compile_id:<8}{compile.frame}  " + style.dim(f"tracing {duration(compile.tracing_ns)}"))
        for row in compile.rows[:TOP_ROWS]:
            lines.append(f"    {_clip(row.code, 58):<58}{duration(row.inclusive_ns):>10}{duration(row.exclusive_ns):>10}"
                         f" {row.calls:>5}×")
        if len(compile.rows) > TOP_ROWS:
            lines.append(style.dim(f"    … {len(compile.rows) - TOP_ROWS} more functions"))
    if len(ranked) > TOP_COMPILES:
        lines.append(style.dim(f"  … {len(ranked) - TOP_COMPILES} more compiles, "
                               f"{duration(sum(c.tracing_ns for c in ranked[TOP_COMPILES:]))} of tracing"))
    return lines


def _kernel_lines(kernels: KernelMap, style: Style, width: int) -> list[str]:
    lines = []
    generated = sorted(kernels.generated, key=lambda kernel: -(kernel.codegen_ns or 0))
    for kernel in generated[:TOP_KERNELS]:
        where = kernel.lines[-1] if kernel.lines else None
        source = f"{where.label} `{where.code}`" if where else "no user line recorded"
        more = f" (+{len(kernel.lines) - 1} lines)" if len(kernel.lines) > 1 else ""
        codegen = duration(kernel.codegen_ns) if kernel.codegen_ns is not None else "—"
        head = f"  {kernel.compile_id:<8}{_clip(kernel.name, 44):<44}{codegen:>10}  "
        lines.append(head + _clip(source + more, max(20, width - len(head))))
    if len(generated) > TOP_KERNELS:
        lines.append(style.dim(f"  … {len(generated) - TOP_KERNELS} more kernels"))
    externs = [kernel for kernel in kernels.kernels if kernel.extern]
    if externs:
        lines.append(style.dim(f"  and {len(externs)} extern call{'s' if len(externs) != 1 else ''} of the wrapper "
                               f"({', '.join(sorted({k.name.rsplit('.', 1)[-1] for k in externs})[:6])})"))
    if kernels.one_time_ns:
        lines.append(style.dim(f"  one-time, not any line's: {duration(kernels.one_time_ns)} inside the first kernel's "
                               "codegen learning the CPU's vector instructions (a test program compiled per ISA, "
                               "once per process)"))
    for compile_id in kernels.from_cache:
        lines.append(style.yellow(f"  {compile_id:<8}warm: Inductor's output came from the cache, no codegen ran; "
                                  "lines read from the output code's comments (none for C++ kernels)"))
    return lines


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
