"""What chapters 8-10 say about the recorded mlp traces holds in those traces (no compiles here)."""

from __future__ import annotations

import re
from functools import cache

import pytest

from tracers.tracefile.chrome import load
from tracers.tracefile.events import Span, Trace

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

TRACES = ROOT / "docs" / "_traces"
CPU = TRACES / "cpu" / "2.13.0" / "mlp-cpu-cold.json"
CUDA = TRACES / "cuda" / "2.11.0" / "mlp-cuda-cold.json"
DEVICES = {"cpu": CPU, "cuda": CUDA}


@cache
def _trace(device: str) -> Trace:
    path = DEVICES[device]
    if not path.exists():
        pytest.skip(f"no recorded {device} mlp trace")
    return load(path)


def _payloads(trace: Trace, name: str) -> list[str]:
    return [a.payload or "" for a in trace.artifacts if a.name == name]


def _short(span: Span) -> str:
    return span.target.rsplit(":", 1)[-1]


def _children(trace: Trace, span: Span) -> list[str]:
    return [_short(s) for s in sorted(trace.spans, key=lambda s: s.start_ns) if s.parent == span.id]


def _one(trace: Trace, qualname: str) -> Span:
    found = [s for s in trace.spans if _short(s) == qualname]
    assert len(found) == 1, (qualname, len(found))
    return found[0]


def _saved_for_backward(forward_graph: str) -> list[str]:
    return re.findall(r"^\s*(\w+),\s*# SavedForBackwardsAOTOutput", forward_graph, re.M)


def _placeholders(graph: str) -> list[str]:
    signature = graph.split("def forward(", 1)[1].split("\n    ):", 1)[0]
    return re.findall(r"^\s*(\w+): \"[^\"]+\",?\s*(?:#.*)?$", signature, re.M)


# -- chapter 8: AOTAutograd ------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_inductor_calls_aot_autograd_and_its_three_steps(device):
    trace = _trace(device)
    by_id = {s.id: s for s in trace.spans}
    aot = _one(trace, "AotAutograd.__call__")
    assert _short(by_id[aot.parent]) == "compile_fx"
    simplified = _one(trace, "aot_module_simplified")
    assert _children(trace, simplified) == ["create_aot_state", "aot_stage1_graph_capture", "aot_stage2_compile"]
    stage2 = _one(trace, "aot_stage2_compile")
    assert _children(trace, stage2) == ["min_cut_rematerialization_partition", "compile_fx_inner"]


@pytest.mark.parametrize("device", DEVICES)
def test_backward_is_compiled_lazily_as_a_root(device):
    trace = _trace(device)
    inner = [s for s in trace.spans if _short(s) == "compile_fx_inner"]
    assert len(inner) == 2
    assert [s.parent is None for s in sorted(inner, key=lambda s: s.start_ns)] == [False, True]


@pytest.mark.parametrize("device", DEVICES)
def test_partitioner_saves_x_fc2_weight_mul_and_le(device):
    trace = _trace(device)
    (forward,) = _payloads(trace, "aot_forward_graph")
    (backward,) = _payloads(trace, "aot_backward_graph")
    assert _saved_for_backward(forward) == ["primals_3", "primals_4", "mul", "le"]
    assert _placeholders(backward) == ["primals_3", "primals_4", "mul", "le", "tangents_1"]
    # le is computed in the forward (moved there from the joint graph's backward part), relu is not saved
    assert "torch.ops.aten.le.Scalar(relu, 0)" in forward
    assert "relu," not in forward.split("return (", 1)[1]


@pytest.mark.parametrize("device", DEVICES)
def test_joint_graph_as_the_chapter_reads_it(device):
    trace = _trace(device)
    (joint,) = _payloads(trace, "aot_joint_graph")
    for op in ("aten.permute.default", "aten.addmm.default", "aten.relu.default", "aten.alias.default",
               "aten.le.Scalar", "aten.scalar_tensor.default", "aten.where.self", "aten.mm.default"):
        assert op in joint, op
    assert joint.count("aten.mm.default(") == 3 and joint.count("aten.alias.default(") == 2
    assert "None,  # None" in joint  # no gradient for x
    assert "linear" not in joint.split("tree_flatten_spec", 1)[1]  # decomposed into permute + addmm


def test_cuda_aot_graphs_match_cpu_apart_from_device_and_source_comments():
    cpu, cuda = _trace("cpu"), _trace("cuda")

    def normal(text: str) -> list[str]:
        lines = [line for line in text.splitlines() if not line.strip().startswith("# File:")]
        return [line.replace("cuda:0", "cpu").replace("device(type='cuda', index=0)", "device(type='cpu')")
                for line in lines]

    for name in ("aot_joint_graph", "aot_forward_graph", "aot_backward_graph"):
        assert normal(_payloads(cpu, name)[0]) == normal(_payloads(cuda, name)[0]), name


# -- chapter 9: Inductor entry and lowering -------------------------------------------------------

def test_cpu_post_grad_keeps_addmm_and_backward_views_become_reshapes():
    trace = _trace("cpu")
    forward, backward = _payloads(trace, "inductor_post_grad_graph")
    assert forward.count("aten.addmm.default(") == 2 and "mm_default" not in forward
    assert "aten.view.default" not in backward and backward.count("aten.reshape.default(") == 2
    (aot_forward,) = _payloads(trace, "aot_forward_graph")
    ops = re.compile(r"= (torch\.ops\.aten\.[\w.]+)\(")
    assert ops.findall(forward) == ops.findall(aot_forward)


def test_cuda_post_grad_unfuses_only_the_first_addmm():
    (forward, _) = _payloads(_trace("cuda"), "inductor_post_grad_graph")
    assert "mm_default" in forward and "add_tensor" in forward
    assert forward.count("aten.addmm.default(") == 1


def _ir(trace: Trace, name: str) -> list[str]:
    texts = _payloads(trace, name)
    if not texts:
        pytest.skip(f"{name} not recorded in this trace")
    return texts


def _ops(ir_text: str) -> list[tuple[str, str]]:
    """The top-level nodes of an IR record (a fused node lists its members again, indented by name)."""
    blocks = [block.strip() for block in ir_text.split("\n\n\n") if block.strip()]
    found = []
    for block in blocks:
        match = re.search(r"^(op\d+(?:_op\d+)*): (\w+)", block, re.M)
        if match:
            found.append((match[1], match[2]))
    return found


def test_cpu_forward_ir_before_fusion_is_two_externs_and_two_computed_buffers():
    before = _ir(_trace("cpu"), "ir_pre_fusion")[0]
    kinds = [kind for _, kind in _ops(before)]
    assert kinds == ["ExternKernelSchedulerNode", "SchedulerNode", "ExternKernelSchedulerNode", "SchedulerNode"]
    # add, relu and mul are already one recipe: relu appears in both computed buffers' bodies
    assert before.count("ops.relu") == 2


# -- chapter 10: scheduling and fusion ------------------------------------------------------------

def test_cpu_forward_fuses_mul_and_le_into_one_node():
    after = _ir(_trace("cpu"), "ir_post_fusion")[0]
    kinds = [kind for _, kind in _ops(after)]
    assert kinds == ["ExternKernelSchedulerNode", "FusedSchedulerNode", "ExternKernelSchedulerNode"]


@pytest.mark.parametrize(("device", "forward_kernels", "backward_kernels"), [
    ("cpu", ["cpp_fused_add_mul_relu_threshold_backward_0"],
     ["cpp_fused_mul_sum_threshold_backward_0", "cpp_fused_sum_1"]),
    ("cuda", ["triton_poi_fused_add_addmm_mul_relu_threshold_backward_0"],
     ["triton_per_fused_sum_0", "triton_per_fused_mul_sum_threshold_backward_1"]),
])
def test_kernel_names(device, forward_kernels, backward_kernels):
    forward, backward = _payloads(_trace(device), "inductor_output_code")
    kernel = re.compile(r"^(\w+) = async_compile\.\w+\(", re.M)
    assert kernel.findall(forward) == forward_kernels
    assert kernel.findall(backward) == backward_kernels


@pytest.mark.parametrize(("device", "externs"), [
    ("cpu", ["addmm", "addmm"]),
    ("cuda", ["mm", "addmm"]),
])
def test_forward_extern_calls(device, externs):
    forward, _ = _payloads(_trace(device), "inductor_output_code")
    assert re.findall(r"extern_kernels\.(\w+)\(", forward) == externs


def test_cpu_backward_scheduler_fuses_nothing_and_why():
    trace = _trace("cpu")
    pre, post = _ir(trace, "ir_pre_fusion")[1], _ir(trace, "ir_post_fusion")[1]
    names = ["op0", "op1", "op2", "op3", "op4", "op5"]
    assert [name for name, _ in _ops(pre)] == names and [name for name, _ in _ops(post)] == names
    # where writes buf3 as one flat loop; the column sum reads it as 64 x 8: not the same MemoryDep
    assert "op3.writes = [MemoryDep('buf3', c0, {c0: 512})]" in pre
    assert "op5.unmet_dependencies = [MemoryDep('buf3', c0 + 64*c1, {c0: 64, c1: 8})]" in pre
    # the C++ backend still writes op2 and op3 (no extern call between them) into one function
    _, backward = _payloads(trace, "inductor_output_code")
    kernel = backward.split("cpp_fused_mul_sum_threshold_backward_0 = ", 1)[1].split("''')", 1)[0]
    assert kernel.count("for(int64_t x0=") == 2


def test_cuda_forward_fuses_mul_and_le_like_the_cpu():
    after = _ir(_trace("cuda"), "ir_post_fusion")[0]  # skipped until the CUDA recording carries IR
    kinds = [kind for _, kind in _ops(after)]
    assert kinds.count("FusedSchedulerNode") == 1 and kinds.count("ExternKernelSchedulerNode") == 2
    before = _ir(_trace("cuda"), "ir_pre_fusion")[0]
    assert "op1.unmet_dependencies = [MemoryDep('buf0', 64*d0 + d1, {d0: 8, d1: 64})]" in before
    assert before.count("ops.load('primals_2'") == 2  # the bias add is in both recipes


def test_cuda_backward_reorders_where_and_fuses_it_into_the_column_sum():
    trace = _trace("cuda")
    pre, post = _ir(trace, "ir_pre_fusion")[1], _ir(trace, "ir_post_fusion")[1]
    assert "op3.writes = [MemoryDep('buf3', 64*d0 + d1, {d0: 8, d1: 64})]" in pre
    assert "op5.unmet_dependencies = [MemoryDep('buf3', d0 + 64*d1, {d0: 64, d1: 8})]" in pre
    assert [name for name, _ in _ops(post)] == ["op0", "op1", "op2", "op3_op5", "op4"]
    assert "op3.writes = [MemoryDep('buf3', c0 + 64*c1, {c0: 64, c1: 8})]" in post
    # on the GPU loops are not merged: the forward's pointwise nodes keep [8, 64]
    assert "op1.sizes = ([8, 64], [])" in _ir(trace, "ir_pre_fusion")[0]
    assert "op1.sizes = ([512], [])" in _ir(_trace("cpu"), "ir_pre_fusion")[0]
