"""The recorded mlp traces show what chapters 11-14 say they show (read from docs/_traces; nothing compiles)."""

from __future__ import annotations

import re

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.tracefile.chrome import load
from tracers.tracefile.events import Span, Trace

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

TRACES = ROOT / "docs" / "_traces"
CPU = TRACES / "cpu" / "2.13.0"
CUDA = TRACES / "cuda" / "2.11.0"

CPP_NODE = "torch._inductor.codegen.cpp:CppScheduling.codegen_node"
SIMD_NODE = "torch._inductor.codegen.simd:SIMDScheduling.codegen_node"
TRITON_KERNEL = "torch._inductor.codegen.triton:TritonKernel.codegen_kernel"
INNER = "torch._inductor.compile_fx:compile_fx_inner"
TO_MODULE = "torch._inductor.graph:GraphLowering.compile_to_module"
GENERATE = "torch._inductor.codegen.wrapper:PythonWrapperCodegen.generate"
TRY_LOAD = "torch._functorch._aot_autograd.autograd_cache:AOTAutogradCache.try_load"
LOAD_WITH_KEY = "torch._inductor.codecache:FxGraphCache.load_with_key"


def _trace(path) -> Trace:  # noqa: ANN001 - a Path
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded")
    return load(path)


def _code(trace: Trace) -> dict[str, str]:
    """The wrapper modules by AOT id: '0_forward' and '0_backward' (the first record of each)."""
    found: dict[str, str] = {}
    for artifact in trace.artifacts:
        if artifact.name == "inductor_output_code" and artifact.payload:
            match = re.search(r"# AOT ID: \['(\w+)'\]", artifact.payload)
            assert match, artifact.payload[:200]
            found.setdefault(match[1], artifact.payload)
    return found


def _call_body(code: str) -> str:
    return code.split("def call(self, args):", 1)[1].split("runner = Runner", 1)[0]


def _by_id(trace: Trace) -> dict[int, Span]:
    return {span.id: span for span in trace.spans}


def _under(trace: Trace, target: str, ancestor: Span) -> list[Span]:
    """Spans of ``target`` anywhere below ``ancestor``."""
    spans = _by_id(trace)
    found = []
    for span in trace.spans:
        if span.target != target:
            continue
        parent = span.parent
        while parent is not None and parent in spans:
            if parent == ancestor.id:
                found.append(span)
                break
            parent = spans[parent].parent
    return found


def _inductor_compiles(trace: Trace) -> list[Span]:
    """compile_fx_inner spans in order: the forward (first call), then the lazily compiled backward."""
    return sorted((s for s in trace.spans if s.target == INNER), key=lambda s: s.start_ns)


@pytest.fixture(scope="module")
def cpu_cold() -> Trace:
    return _trace(CPU / "mlp-cpu-cold.json")


@pytest.fixture(scope="module")
def cuda_cold() -> Trace:
    return _trace(CUDA / "mlp-cuda-cold.json")


# -- chapter 11: C++ on CPU ---------------------------------------------------------------------

def test_cpu_kernel_groups_hold_unfused_nodes(cpu_cold):
    """Forward: one codegen_node, one kernel. Backward: three codegen_node calls, two kernels, the first
    with two loop nests (the bias sum of fc2 and the ReLU backward), flushed by the extern mm between."""
    forward, backward = _inductor_compiles(cpu_cold)
    assert len(_under(cpu_cold, CPP_NODE, forward)) == 1
    assert len(_under(cpu_cold, CPP_NODE, backward)) == 3
    code = _code(cpu_cold)
    assert re.findall(r"^(cpp_fused_\w+) = async_compile\.cpp_pybinding", code["0_forward"], re.M) == [
        "cpp_fused_add_mul_relu_threshold_backward_0"]
    kernels = re.findall(r"^(cpp_fused_\w+) = async_compile\.cpp_pybinding", code["0_backward"], re.M)
    assert kernels == ["cpp_fused_mul_sum_threshold_backward_0", "cpp_fused_sum_1"]
    first = code["0_backward"].split("cpp_fused_mul_sum_threshold_backward_0 = ", 1)[1].split("''')", 1)[0]
    assert first.count("for(int64_t x0=") == 2 and "in_out_ptr0" in first
    body = _call_body(code["0_backward"])
    assert body.index("cpp_fused_mul_sum_threshold_backward_0(") < body.index("extern_kernels.mm(reinterpret_tensor(buf3")
    assert body.index("extern_kernels.mm(reinterpret_tensor(buf3") < body.index("cpp_fused_sum_1(")


def test_cpu_kernels_are_vectorized_by_16_floats_and_named_kernel(cpu_cold):
    code = _code(cpu_cold)["0_forward"]
    assert 'extern "C"  void  kernel(' in code
    assert "x0+=static_cast<int64_t>(16L)" in code
    assert "at::vec::Vectorized<float>::loadu" in code and "at::vec::clamp_min" in code
    assert "C10_UNLIKELY" not in code  # 512 is a multiple of 16: no tail range
    assert "extern_kernels.addmm(primals_2, primals_3" in code  # the bias stays in the library call on CPU


def test_cpu_first_codegen_node_is_the_slow_one(cpu_cold):
    """The forward's single codegen_node (vector ISA probed on first use) outlasts the backward's three."""
    forward, backward = _inductor_compiles(cpu_cold)
    first = _under(cpu_cold, CPP_NODE, forward)[0]
    assert first.duration_ns > sum(s.duration_ns for s in _under(cpu_cold, CPP_NODE, backward))


# -- chapter 12: Triton on CUDA -----------------------------------------------------------------

def test_cuda_one_kernel_per_codegen_node(cuda_cold):
    forward, backward = _inductor_compiles(cuda_cold)
    assert len(_under(cuda_cold, SIMD_NODE, forward)) == 1 == len(_under(cuda_cold, TRITON_KERNEL, forward))
    assert len(_under(cuda_cold, SIMD_NODE, backward)) == 2 == len(_under(cuda_cold, TRITON_KERNEL, backward))
    code = _code(cuda_cold)
    names = re.compile(r"^(triton_\w+) = async_compile\.triton", re.M)
    assert names.findall(code["0_forward"]) == ["triton_poi_fused_add_addmm_mul_relu_threshold_backward_0"]
    assert names.findall(code["0_backward"]) == ["triton_per_fused_sum_0", "triton_per_fused_mul_sum_threshold_backward_1"]


def test_cuda_kernel_sources_match_the_chapter(cuda_cold):
    code = _code(cuda_cold)
    forward = code["0_forward"]
    assert "@triton_heuristics.pointwise(\n    size_hints={'x': 512}," in forward
    assert "x0 = (xindex % 64)" in forward and "eviction_policy='evict_last'" in forward
    assert "'grid_type': 'Grid1D'" in forward and "multi_processor_count=132" in forward
    assert "extern_kernels.mm(primals_3" in forward  # the bias add moved into the Triton kernel
    backward = code["0_backward"]
    assert backward.count("@triton_heuristics.persistent_reduction(") == 2
    assert backward.count("R0_BLOCK: tl.constexpr = 8") == 2
    assert "tl.where(tmp0, tmp4, tmp3)" in backward  # the ReLU backward inside the second reduction


def test_pointwise_block_size_formula_gives_256_for_512_elements():
    """Chapter 12's arithmetic, from the excerpted line: bs = max(256, min(numel // 128, 1024))."""
    numel = 512
    assert max(256, min(numel // 128, 1024)) == 256


# -- chapter 13: the wrapper --------------------------------------------------------------------

def test_wrapper_asserts_deferred_in_2_13_and_upfront_in_2_11(cpu_cold, cuda_cold):
    cpu = _call_body(_code(cpu_cold)["0_forward"])
    cuda = _call_body(_code(cuda_cold)["0_forward"])
    assert "args.clear()" in cpu and "args.clear()" in cuda
    # 2.13 (CPU): each assert just before its first reader, with 'input'; primals_4/5 before the C++ call
    assert cpu.index("assert_size_stride(primals_1, (64, 32), (32, 1), 'input')") < cpu.index("buf0 = ")
    assert cpu.index("buf0 = ") < cpu.index("assert_size_stride(primals_5")
    assert cpu.index("assert_size_stride(primals_4") < cpu.index("cpp_fused_add_mul_relu_threshold_backward_0(")
    # 2.11 (CUDA): all five asserts first, without 'input'
    asserts = [line.strip() for line in cuda.splitlines() if "assert_size_stride(" in line]
    assert len(asserts) == 5 and all("'input'" not in line for line in asserts)
    assert cuda.index(asserts[-1]) < cuda.index("buf0 = ")
    assert "with torch.cuda._DeviceGuard(0):" in cuda and "stream=stream0)" in cuda


def test_wrapper_reuses_and_returns_as_described(cpu_cold, cuda_cold):
    for trace in (cpu_cold, cuda_cold):
        code = _code(trace)
        assert "return (buf2, primals_3, primals_4, buf1, buf3, )" in code["0_forward"]
        backward = _call_body(code["0_backward"])
        assert "buf3 = buf0; del buf0  # reuse" in backward
        assert ", None, buf1, " in backward
        assert "def benchmark_compiled_module(" in code["0_forward"]
    assert "reinterpret_tensor(primals_1, (32, 64), (1, 32), 0)" in _code(cpu_cold)["0_forward"]


def test_compile_to_module_holds_scheduler_and_generate(cpu_cold, cuda_cold):
    for trace in (cpu_cold, cuda_cold):
        modules = [s for s in trace.spans if s.target == TO_MODULE]
        assert len(modules) == 2  # forward, then the lazily compiled backward
        for module in modules:
            generate = _under(trace, GENERATE, module)
            assert len(generate) == 1
            children = [s for s in trace.spans if s.parent == module.id]
            assert max(children, key=lambda s: s.end_ns).target == GENERATE  # loading comes after, untraced


# -- chapter 14: caches -------------------------------------------------------------------------

@pytest.mark.parametrize("device,root", [("cpu", CPU), ("cuda", CUDA)])
def test_warm_run_skips_what_the_chapter_says(device, root):
    warm = _trace(root / f"mlp-{device}-warm.json")
    cold = _trace(root / f"mlp-{device}-cold.json")
    assert warm.info.cache_mode == "warm" and cold.info.cache_mode == "cold"
    facts, cold_facts = analyze(warm), analyze(cold)
    assert {s.stage for s in cold.spans if s.stage == "cache"} == set()
    assert cold_facts.compiles[0].cache == []
    ran = {s.stage for s in warm.spans}
    assert {"frame", "bytecode", "guards", "graph", "aot"} <= ran  # Dynamo in full; AOTAutograd entered
    assert not ran & {"partition", "lowering", "scheduling", "cpp", "triton", "wrapper", "load"}
    assert not [s for s in warm.spans if s.target == INNER]  # no lazy backward compile either
    (compile_facts,) = facts.compiles
    outcomes = sorted((event.cache, event.outcome) for event in compile_facts.cache)
    assert outcomes == [("aotautograd", "hit"), ("fx_graph", "hit"), ("fx_graph", "hit")]
    codegen = "cpp" if device == "cpu" else "triton"
    assert {"lowering", "scheduling", codegen, "wrapper", "load"} <= set(compile_facts.skipped)
    (try_load,) = [s for s in warm.spans if s.target == TRY_LOAD]
    assert len(_under(warm, LOAD_WITH_KEY, try_load)) == 2  # forward and backward
    replayed = {a.name for a in warm.artifacts if a.span == try_load.id}
    assert {"aot_joint_graph", "aot_forward_graph", "aot_backward_graph"} <= replayed
    assert set(_code(warm)) == {"0_forward", "0_backward"}
    strip = re.compile(r"^# kernel path: .*$", re.M)  # the only line that names the (temporary) cache dir
    for name, text in _code(warm).items():  # the stored wrapper is the module a cold compile writes
        assert strip.sub("", text) == strip.sub("", _code(cold)[name])


def test_warm_cpu_lines_ran_the_hit_branch_twice_and_never_the_miss():
    """Chapter 14's marked lines: in FxGraphCache.load_with_key, 'hit' twice (forward, backward), 'miss' never."""
    import inspect

    import torch._inductor.codecache as codecache

    warm = _trace(CPU / "mlp-cpu-warm.json")
    counts = warm.executed_lines.get("torch/_inductor/codecache.py")
    if not counts:
        pytest.skip("warm recording without executed lines")
    source, first = inspect.getsourcelines(codecache.FxGraphCache.load_with_key)
    line_of = {text.strip(): first + offset for offset, text in enumerate(source)}
    assert counts.get(line_of['cache_info["cache_state"] = "hit"']) == 2
    assert line_of['cache_info["cache_state"] = "miss"'] not in counts
