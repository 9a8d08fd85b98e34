"""Compile time by your code: Dynamo's tracing time by user function, and each kernel's user lines, from real compiles."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
import torch
import torch._dynamo

import tracers
from tracers.analysis.by_code import by_code
from tracers.analysis.code_diff import code_diff
from tracers.analysis.trace_facts import analyze
from tracers.analysis.kernels import kernel_map
from tracers.terminal.summary import Style, render
from tracers.capture.kernel_origins import parse_stack
from tracers.report.by_code import render_by_code
from tracers.tracefile.events import Artifact, RunInfo, Span, Trace

from tests.conftest import EXAMPLES

pytestmark = pytest.mark.torch


class Inner(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x * self.scale)


class Outer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first, self.second = Inner(), Inner()

    def helper(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(x) + 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.helper(self.first(x))


@pytest.fixture(scope="module")
def nested() -> tracers.TraceResult:
    torch._dynamo.reset()
    with tracers.trace(name="nested") as result:
        torch.compile(Outer(), backend="aot_eager")(torch.randn(3, 4))
    torch._dynamo.reset()
    return result


def _rows(result: tracers.TraceResult) -> dict[str, tuple[int, int, int]]:
    (compile,) = result.by_code.compiles
    return {row.code.split(" (", 1)[0]: (row.calls, row.inclusive_ns, row.exclusive_ns) for row in compile.rows}


def test_inlined_methods_appear_with_their_class_names_and_calls(nested):
    rows = _rows(nested)
    assert rows["Outer.forward"][0] == 1
    assert rows["Outer.helper"][0] == 1
    assert rows["Inner.forward"][0] == 2, "two submodule calls, each inlined"


def test_the_split_adds_up_to_the_tracing_time_and_nests(nested):
    (compile,) = nested.by_code.compiles
    assert compile.compile_id == "0/0"
    assert compile.attributed_ns == compile.tracing_ns > 0
    rows = _rows(nested)
    assert rows["Outer.forward"][1] == compile.tracing_ns, "the frame compiled holds everything it inlined"
    assert rows["Outer.helper"][1] >= rows["Outer.helper"][2]
    (root,) = compile.roots
    assert [child.code.split(" (", 1)[0] for child in root.children] == ["Inner.forward", "Outer.helper"]
    # The backend compile that runs inside tracing (compile_subgraph) is not tracing time.
    run = next(span for span in nested.trace.spans if span.frame and span.frame.startswith("Outer.forward")
               and span.stage == "bytecode")
    assert compile.tracing_ns < run.duration_ns


def test_summary_and_page_show_it(nested):
    text = nested.summary()
    assert "Compile time by your code" in text
    assert "Inner.forward" in text
    html = render_by_code(nested.trace)
    HTMLParser().feed(html)
    assert "<script" not in html and "Inner.forward" in html and "<svg" in html


def _span(id_: int, parent: int | None, stage: str, frame: str | None, start: int, end: int) -> Span:
    return Span(id_, parent, f"t:{stage}{id_}", stage, 1, "MainThread", 0, start, end, "0/0", frame)


def _trace(spans: list[Span], artifacts: list[Artifact] = ()) -> Trace:
    info = RunInfo(1, "0", "2.13.0", "", "3.11", "linux", "cpu", "", "cold", [], "")
    return Trace(info, spans, list(artifacts))


def test_recursion_is_counted_once_and_graph_compiles_are_left_out():
    trace = _trace([
        _span(1, None, "bytecode", "f (a.py:1)", 0, 1000),
        _span(2, 1, "bytecode", "g (a.py:5)", 100, 600),
        _span(3, 2, "bytecode", "g (a.py:5)", 200, 400),  # g calls itself
        _span(4, 1, "graph", None, 700, 950),  # compile_subgraph inside the run
    ])
    (compile,) = by_code(trace).compiles
    rows = {row.code: row for row in compile.rows}
    assert compile.tracing_ns == 1000 - 250 == compile.attributed_ns
    assert rows["g (a.py:5)"].calls == 2
    assert rows["g (a.py:5)"].inclusive_ns == 500  # not 500 + 200
    assert rows["g (a.py:5)"].exclusive_ns == 500
    assert rows["f (a.py:1)"].exclusive_ns == 1000 - 500 - 250


def test_a_warm_compile_says_no_codegen_ran_and_diff_compares_lines():
    cache = Artifact(1, "cache", "fx_graph_cache_hit", "0/0", None, 1, 0)
    kernel = Artifact(2, "kernel", "kernel_origins", "0/0", None, 1, 0, {
        "kernel": "cpp_fused_relu_0", "extern": False, "nodes": ["relu"], "ops": ["aten.relu.default"],
        "frames": {"0": ["/x/m.py", 7, "forward", "return x.relu()"]}, "stacks": [[0]], "codegen_spans": [1]})
    cold = _trace([_span(1, None, "cpp", None, 0, 50)], [kernel])
    warm = _trace([], [cache])
    (found,) = kernel_map(cold).kernels
    assert (found.name, found.lines[0].label, found.codegen_ns) == ("cpp_fused_relu_0", "m.py:7", 50)
    assert kernel_map(warm).from_cache == ("0/0",)
    assert "no codegen ran" in render(warm, analyze(warm), Style(False))
    (line,) = code_diff(cold, warm).lines
    assert (line.line, line.a_kernels, line.b_kernels) == ("m.py:7", ("cpp_fused_relu_0",), ())


def test_stack_traces_parse_as_torch_formats_them():
    text = ('  File "/w/model.py", line 45, in forward\n    x = block(x)\n'
            '  File "/w/model.py", line 33, in forward\n    return self.up(x)\n')
    assert parse_stack(text) == (("/w/model.py", 45, "forward", "x = block(x)"),
                                 ("/w/model.py", 33, "forward", "return self.up(x)"))


def test_inductor_mlp_fused_kernel_maps_back_to_its_forward_line(mlp_cold):
    """The one cold Inductor compile of the suite (conftest's mlp_cold, shared with test_pipeline)."""
    assert mlp_cold.returncode == 0, mlp_cold.stderr
    trace = mlp_cold.trace()
    kernels = kernel_map(trace)
    forward_line = next(number for number, text in enumerate((EXAMPLES / "mlp.py").read_text().splitlines(), 1)
                        if text.strip().startswith("return self.fc2("))
    fused = [kernel for kernel in kernels.generated if "relu" in kernel.name]
    assert fused, [kernel.name for kernel in kernels.kernels]
    for kernel in fused:
        assert [line.label for line in kernel.lines] == [f"mlp.py:{forward_line}"]
        assert kernel.lines[0].code.startswith("return self.fc2(")
        assert kernel.codegen_ns and kernel.codegen_ns > 0
        assert {"add", "relu"} <= set(kernel.nodes)
    assert any(kernel.extern and "addmm" in kernel.name for kernel in kernels.kernels), "the wrapper's extern calls"
    (entry,) = [entry for entry in kernels.by_line() if entry.line.label == f"mlp.py:{forward_line}"]
    assert {kernel.name for kernel in fused} <= {kernel.name for kernel in entry.kernels}
    assert "Your lines behind each kernel" in mlp_cold.stderr


def test_a_warm_run_and_a_recorded_cuda_trace_read_lines_from_the_output_code_comments():
    """No codegen seen (a cache hit, or a trace recorded before the tracer read kernels): the comments say it."""
    from tracers.tracefile.chrome import load

    root = EXAMPLES.parent / "_traces"
    warm = kernel_map(load(root / "cpu" / "2.13.0" / "mlp-cpu-warm.json"))
    assert warm.from_cache == ("0/0",)
    assert {kernel.name for kernel in warm.kernels} == {"extern_kernels.addmm", "extern_kernels.mm"}
    assert all(kernel.source == "output code" and kernel.codegen_ns is None for kernel in warm.kernels)
    cuda = kernel_map(load(root / "cuda" / "2.11.0" / "mlp-cuda-cold.json"))
    fused = [kernel for kernel in cuda.generated if "relu" in kernel.name]
    assert fused and all(kernel.name.startswith("triton_") for kernel in fused)
    assert [line.label for line in fused[0].lines] == ["mlp.py:14"]
    assert {"add", "relu"} <= set(fused[0].nodes)


def test_the_cpu_isa_check_is_one_time_not_the_first_kernels(mlp_cold):
    """The first C++ kernel's codegen learns the CPU's vector instruction sets once per process: that time is its
    own stage and is left out of the kernel's codegen time, which belongs to a user line."""
    from tracers.analysis.kernels import ONE_TIME_TARGETS, kernel_map
    from tracers.terminal.by_code import render as render_by_code

    trace = mlp_cold.trace()
    checks = [span for span in trace.spans if span.target in ONE_TIME_TARGETS]
    assert checks and {span.stage for span in checks} == {"cpu_isa"}
    kernels = kernel_map(trace)
    assert kernels.one_time_ns == sum(span.duration_ns for span in checks)
    [first] = [kernel for kernel in kernels.generated if kernel.one_time_ns]
    spans = {span.id: span for span in trace.spans}
    written = sum(span.duration_ns for span in trace.spans
                  if span.target.endswith("CppScheduling.codegen_node") and span.compile_id == first.compile_id
                  and any(check.parent == span.id or _inside(check, span.id, spans) for check in checks))
    assert first.codegen_ns == written - first.one_time_ns
    assert any("one-time, not any line's" in line for line in render_by_code(trace, Style(False)))


def _inside(span, ancestor: int, spans: dict) -> bool:  # noqa: ANN001 - a Span
    seen = set()
    parent = span.parent
    while parent is not None and parent not in seen:
        if parent == ancestor:
            return True
        seen.add(parent)
        parent = spans[parent].parent if parent in spans else None
    return False
