"""The recorded compiled_autograd traces show what chapter 16 says they show (read from docs/_traces; nothing compiles)."""

from __future__ import annotations

import re

import pytest

from tracers.tracefile.chrome import load
from tracers.tracefile.events import Artifact, Span, Trace

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

TRACES = ROOT / "docs" / "_traces"
RECORDINGS = [("cpu", TRACES / "cpu" / "2.13.0"), ("cuda", TRACES / "cuda" / "2.11.0")]

BEGIN = "torch._dynamo.compiled_autograd:AutogradCompilerInstance.begin_capture"
END = "torch._dynamo.compiled_autograd:AutogradCompilerInstance.end_capture"
COMPILE = "torch._dynamo.convert_frame:_compile"
CONTEXT_CALL = "torch._dynamo.eval_frame:_TorchDynamoContext.__call__"
INNER = "torch._inductor.compile_fx:compile_fx_inner"
PARTITION = "torch._functorch.partitioners:min_cut_rematerialization_partition"
PARAMETERS = 4  # fc1.weight, fc1.bias, fc2.weight, fc2.bias: one AccumulateGrad each


def by_id(trace: Trace) -> dict[int, Span]:
    return {span.id: span for span in trace.spans}


def ancestors(trace: Trace, span: Span) -> list[str]:
    spans, names = by_id(trace), []
    while span.parent is not None:
        span = spans[span.parent]
        names.append(span.target)
    return names


def artifacts(trace: Trace, name: str, compile_prefix: str = "") -> list[Artifact]:
    return [a for a in trace.artifacts if a.name == name and (a.compile_id or "").startswith(compile_prefix)]


def capture_spans(trace: Trace) -> tuple[Span, Span]:
    """The one begin_capture and the one end_capture: two training steps, one capture."""
    begins = [s for s in trace.spans if s.target == BEGIN]
    ends = [s for s in trace.spans if s.target == END]
    assert len(begins) == 1 and len(ends) == 1, (len(begins), len(ends))
    return begins[0], ends[0]


def backward_compile(trace: Trace) -> Span:
    """Dynamo's compile of the compiled autograd graph: the one _compile under a '!' compile id."""
    compiles = [s for s in trace.spans if s.target == COMPILE and (s.compile_id or "").startswith("!")]
    assert len(compiles) == 1, [s.compile_id for s in compiles]
    return compiles[0]


def check_capture_nesting(trace: Trace) -> None:
    """Chapter 16's tree: the capture runs inside loss.backward(), outside any Dynamo compile; the graph
    it hands back is wrapped by torch.compile inside end_capture and compiled by Dynamo only after."""
    begin, end = capture_spans(trace)
    assert begin.parent is None and end.parent is None
    assert begin.compile_id == end.compile_id == "!0"
    assert begin.end_ns <= end.start_ns
    assert any(s.target == CONTEXT_CALL and s.parent == end.id for s in trace.spans)
    compile_span = backward_compile(trace)
    assert compile_span.compile_id.startswith("!0/")
    assert compile_span.start_ns >= end.end_ns
    assert compile_span.frame and compile_span.frame.startswith("forward (<eval_with_key>")
    assert not {BEGIN, END} & set(ancestors(trace, compile_span))


def check_backward_graph(trace: Trace) -> None:
    """One compiled autograd graph, logged from end_capture: the AOT backward pasted in, one
    accumulate per parameter, the tensor hook as an opaque call."""
    _, end = capture_spans(trace)
    (graph,) = artifacts(trace, "compiled_autograd_graph")
    assert graph.compile_id == "!0" and graph.span == end.id
    text = graph.payload or ""
    assert "class CompiledAutograd0(torch.nn.Module)" in text
    assert "call_aot_bwd_prologue" in text and "aot0_tangents_1" in text
    assert len(re.findall(r"= torch__dynamo_external_utils_call_accumulate_grad\(", text)) == PARAMETERS
    assert re.search(r"call_hook\(\w+, \w+, hook_type = 'tensor_pre_hook'\)", text)
    assert "clamp" not in text  # the hook is not traced at capture time ...


def check_hook_traced_by_dynamo(trace: Trace) -> None:
    """... but Dynamo, tracing the captured graph, inlines the hook: its clamp is in Dynamo's graph."""
    compile_id = backward_compile(trace).compile_id
    (graph,) = [a for a in artifacts(trace, "dynamo_output_graph") if a.compile_id == compile_id]
    text = graph.payload or ""
    assert ".clamp(-0.01, 0.01)" in text and "in <lambda>" in text
    assert text.count("torch__dynamo_compiled_autograd_ops_AccumulateGrad(") == PARAMETERS


def check_no_lazy_backward(trace: Trace) -> None:
    """AOTAutograd still partitions the forward, but its backward graph is never compiled on its own:
    the captured graph (an inference graph: nothing in it needs a gradient) replaces it."""
    assert artifacts(trace, "aot_joint_graph", "0/0") and artifacts(trace, "aot_backward_graph", "0/0")
    assert artifacts(trace, "aot_inference_graph", "!0/") and not artifacts(trace, "aot_joint_graph", "!")
    partitions = [s for s in trace.spans if s.target == PARTITION]
    assert [s.compile_id for s in partitions] == ["0/0"]
    inner = [s for s in trace.spans if s.target == INNER]
    if inner:  # Inductor recordings: one forward compile, one compile of the captured graph, none lazy
        # The captured graph's frame id depends on how many frames Dynamo was offered before it
        # (1 in torch 2.13, 2 in 2.11, which also tries typing.cast): !0/<frame>/0.
        forward, captured = sorted(s.compile_id for s in inner)[::-1]
        assert forward == "0/0" and re.fullmatch(r"!0/\d+/0", captured)
        assert all(COMPILE in ancestors(trace, s) for s in inner)


def _recording(device: str) -> Trace:
    root = dict(RECORDINGS)[device]
    path = root / f"compiled_autograd-{device}-cold.json"
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded")
    return load(path)


@pytest.fixture(scope="module", params=[device for device, _ in RECORDINGS])
def recorded(request: pytest.FixtureRequest) -> Trace:
    return _recording(request.param)


def test_two_steps_one_capture_outside_dynamo(recorded):
    check_capture_nesting(recorded)


def test_captured_graph_holds_aot_backward_accumulates_and_hook(recorded):
    check_backward_graph(recorded)


def test_dynamo_traces_the_hook_into_the_backward_graph(recorded):
    check_hook_traced_by_dynamo(recorded)


def test_no_lazy_backward_compile(recorded):
    check_no_lazy_backward(recorded)


def test_inductor_compiles_the_hook_into_the_backward_kernels(recorded):
    """The clamp reaches Inductor's graph of the backward; one wrapper module holds the whole backward."""
    (post_grad,) = artifacts(recorded, "inductor_post_grad_graph", "!0/")
    assert "aten.clamp_min" in (post_grad.payload or "") and "aten.clamp_max" in (post_grad.payload or "")
    modules = {a.payload for a in artifacts(recorded, "inductor_output_code", "!0/")}
    assert len(modules) == 1 and "def call(self, args):" in (modules.pop() or "")


def test_executed_lines_show_one_capture(recorded):
    """Recorded with --lines: begin_capture's body ran for one capture, not once per step."""
    assert recorded.info.lines_recorded
    path, first, last = recorded.info.target_sources[BEGIN]
    counts = recorded.executed_lines.get(path, {})
    inside = [count for line, count in counts.items() if first <= int(line) <= last]
    assert inside and min(inside) == 1


def test_cpu_clamp_is_a_kernel_of_its_own_in_place():
    """Chapter 16: on CPU the hook's clamp is one vectorized C++ kernel, run in place on a matmul's output."""
    trace = _recording("cpu")
    (code,) = {a.payload for a in artifacts(trace, "inductor_output_code", "!0/")}
    kernels = re.findall(r"^(cpp_fused_\w+) = async_compile\.cpp_pybinding\(\['float\*'\], r'''(.*?)'''\)",
                         code or "", re.M | re.S)
    clamps = [name for name, source in kernels
              if "at::vec::maximum" in source and "at::vec::minimum" in source and "in_out_ptr0" in source]
    assert len(clamps) == 1, [name for name, _ in kernels]
    assert re.search(rf"extern_kernels\.mm\([^\n]*out=(buf\d+)\)\n(?:.*\n){{0,4}}.*{clamps[0]}\(", code or "")
