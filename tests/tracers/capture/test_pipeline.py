"""Real compiles through the CLI: every target fires where it must, in pipeline order, properly nested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.tracefile.chrome import load
from tracers.tracefile.events import Span, Trace
from tracers.tracefile.stages import STAGE_ORDER, all_targets

from tests.conftest import ROOT

pytestmark = pytest.mark.torch

# What each example must show. CUDA-only stages are proven by the traces recorded on the GPU machine.
MLP_INDUCTOR_CPU = {
    "torch._inductor.cpu_vec_isa:VecISA.check_build",
    "torch._inductor.codecache:_precompile_header",
    "torch:compile",
    "torch._dynamo.eval_frame:_optimize",
    "torch._dynamo.eval_frame:_TorchDynamoContext.__call__",
    "torch._dynamo.convert_frame:ConvertFrame.__call__",
    "torch._dynamo.convert_frame:ConvertFrameAssert.__call__",
    "torch._dynamo.convert_frame:_compile",
    "torch._dynamo.convert_frame:compile_frame",
    "torch._dynamo.convert_frame:trace_frame",
    "torch._dynamo.symbolic_convert:InstructionTranslatorBase.run",
    "torch._dynamo.guards:CheckFunctionManager.__init__",
    "torch._dynamo.output_graph:OutputGraph.compile_subgraph",
    "torch._dynamo.output_graph:OutputGraph.compile_and_call_fx_graph",
    "torch._dynamo.output_graph:OutputGraph.call_user_compiler",
    "torch._dynamo.backends.common:AotAutograd.__call__",
    "torch._functorch.aot_autograd:aot_module_simplified",
    "torch._functorch.aot_autograd:create_aot_state",
    "torch._functorch._aot_autograd.graph_compile:aot_stage1_graph_capture",
    "torch._functorch._aot_autograd.graph_compile:aot_stage2_compile",
    "torch._functorch.partitioners:min_cut_rematerialization_partition",
    "torch._inductor.compile_fx:compile_fx",
    "torch._inductor.compile_fx:compile_fx_inner",
    "torch._inductor.compile_fx:fx_codegen_and_compile",
    "torch._inductor.graph:GraphLowering.run",
    "torch._inductor.select_algorithm:autotune_select_algorithm",
    "torch._inductor.scheduler:Scheduler.__init__",
    "torch._inductor.scheduler:Scheduler.fuse_nodes",
    "torch._inductor.scheduler:Scheduler.codegen",
    "torch._inductor.debug:set_kernel_post_grad_provenance_tracing",
    "torch._inductor.codegen.cpp:CppScheduling.codegen_node",
    "torch._inductor.codegen.wrapper:PythonWrapperCodegen.generate",
    "torch._inductor.graph:GraphLowering.compile_to_module",
}
WARM_CACHE = {
    "torch._inductor.codecache:FxGraphCache.load_with_key",
    "torch._functorch._aot_autograd.autograd_cache:AOTAutogradCache.try_load",
}
CUDA_ONLY = {
    "torch._inductor.codegen.simd:SIMDScheduling.codegen_node",
    "torch._inductor.codegen.triton:TritonKernel.codegen_kernel",
    "torch._inductor.cudagraph_trees:cudagraphify_impl",
    "torch._inductor.cudagraph_trees:CUDAGraphTreeManager.record_function",
    "torch._inductor.cudagraph_utils:log_cudagraph_skip_and_bump_counter",
}
# Proven by their own examples: the max_autotune recordings (benchmarking several candidates) and
# tests/tracers/capture/test_compiled_autograd.py (a backward captured at run time).
AUTOTUNE_ONLY = {"torch._inductor.select_algorithm:AlgorithmSelectorCache.do_autotuning",
                 "torch._inductor.runtime.benchmarking:Benchmarker.benchmark"}
COMPILED_AUTOGRAD = {
    "torch._dynamo.compiled_autograd:AutogradCompilerInstance.begin_capture",
    "torch._dynamo.compiled_autograd:AutogradCompilerInstance.end_capture",
}
# Proven by tests/tracers/analysis/test_real_programs.py: the tutorial-like program resets Dynamo twice.
RESETS = {"torch._dynamo:reset"}
CUDA_TRACES = ROOT / "docs" / "_traces" / "cuda"


def _fired(trace: Trace) -> set[str]:
    return {span.target for span in trace.spans}


def _ancestors(span: Span, by_id: dict[int, Span]) -> list[str]:
    names = []
    while span.parent is not None:
        span = by_id[span.parent]
        names.append(span.target.split(":", 1)[1])
    return names


def test_the_expectations_cover_the_whole_stages_table():
    expected = MLP_INDUCTOR_CPU | WARM_CACHE | CUDA_ONLY | AUTOTUNE_ONLY | COMPILED_AUTOGRAD | RESETS
    assert expected == {target.name for target in all_targets()}


def test_inductor_on_cpu_fires_every_cpu_target(mlp_cold):
    assert mlp_cold.returncode == 0, mlp_cold.stderr
    trace = mlp_cold.trace()
    assert MLP_INDUCTOR_CPU <= _fired(trace)
    assert not (CUDA_ONLY & _fired(trace)), "no Triton or CUDA graphs on the CPU"
    assert trace.info.targets_missing == {}


def test_stages_start_in_pipeline_order_and_nest_as_the_pipeline_calls_them(mlp_cold):
    trace = mlp_cold.trace()
    by_id = {span.id: span for span in trace.spans}
    # The forward compile: everything under the frame conversion (the backward compiles lazily, later).
    forward = [span for span in trace.spans if span.target.endswith("ConvertFrame.__call__")
               or "ConvertFrame.__call__" in _ancestors(span, by_id)]
    first_start: dict[str, int] = {}
    for span in forward:
        first_start.setdefault(span.stage, span.start_ns)
    main_path = ["frame", "bytecode", "graph", "aot", "partition", "lowering", "scheduling", "cpp", "wrapper"]
    starts = [first_start[stage] for stage in main_path]
    assert starts == sorted(starts)
    assert [STAGE_ORDER[s] for s in main_path] == sorted(STAGE_ORDER[s] for s in main_path)

    expected_inside = {
        "ConvertFrameAssert.__call__": "ConvertFrame.__call__",
        "_compile": "ConvertFrameAssert.__call__",
        "CheckFunctionManager.__init__": "_compile",
        "call_user_compiler": "InstructionTranslatorBase.run",
        "aot_module_simplified": "OutputGraph.call_user_compiler",
        "min_cut_rematerialization_partition": "aot_stage2_compile",
        "compile_fx_inner": "aot_stage2_compile",
        "GraphLowering.run": "fx_codegen_and_compile",
        "Scheduler.fuse_nodes": "Scheduler.__init__",
        "CppScheduling.codegen_node": "Scheduler.codegen",
        "PythonWrapperCodegen.generate": "GraphLowering.compile_to_module",
    }
    for span in forward:
        qualname = span.target.split(":", 1)[1]
        for child, parent in expected_inside.items():
            if qualname.endswith(child):
                assert any(name.endswith(parent) for name in _ancestors(span, by_id)), (child, parent)
    for span in trace.spans:
        if span.parent is not None:
            parent = by_id[span.parent]
            assert parent.depth == span.depth - 1 and parent.thread_id == span.thread_id
            assert parent.start_ns <= span.start_ns <= span.end_ns <= parent.end_ns


def test_the_lazy_backward_compile_is_its_own_root_with_the_forward_compile_id(mlp_cold):
    trace = mlp_cold.trace()
    roots = [span for span in trace.spans if span.parent is None and span.stage == "inductor"]
    assert [root.target.split(":")[1] for root in roots] == ["compile_fx_inner"]
    assert roots[0].compile_id == "0/0"


def test_warm_run_hits_both_caches_and_skips_inductor_codegen(mlp_warm_pair):
    first, second = mlp_warm_pair
    assert first.returncode == second.returncode == 0, second.stderr
    assert first.stdout == second.stdout
    first_facts, second_facts = first.facts(), second.facts()
    assert first_facts.cache_counts["fx_graph"]["miss"] >= 1
    assert WARM_CACHE <= _fired(second.trace())
    assert second_facts.cache_counts["aotautograd"]["hit"] == 1
    fired = _fired(second.trace())
    assert "torch._inductor.graph:GraphLowering.run" not in fired
    assert "torch._inductor.codegen.cpp:CppScheduling.codegen_node" not in fired
    compile_0 = next(c for c in second_facts.compiles if c.compile_id == "0/0")
    assert {"lowering", "scheduling", "cpp", "wrapper"} <= set(compile_0.skipped)
    assert "skipped thanks to the cache" in second.stderr
    assert second.trace().info.cache_mode == "warm"


def test_cold_run_never_consults_the_caches(mlp_cold):
    facts = mlp_cold.facts()
    assert not any(counts for counts in facts.cache_counts.values())
    assert mlp_cold.trace().info.cache_mode == "cold"


def test_graph_breaks_example_compiles_each_piece_and_recompiles_each_on_the_new_shape(graph_breaks):
    facts = graph_breaks.facts()
    assert [c.compile_id for c in facts.compiles] == ["0/0", "0/1", "1/0", "1/1", "2/0", "2/1"]
    assert [b.location.rsplit(":", 1)[1] for b in facts.graph_breaks] == ["10", "11", "10", "11"]
    assert len(facts.recompiles) == 3
    assert all("size mismatch" in reason for r in facts.recompiles for reason in r.reasons)
    assert facts.compiles[0].frame == "scale_and_report (graph_breaks.py:8)"
    first_call, second_call = facts.compiles[0], facts.compiles[1]  # 0/0 and its recompile 0/1
    assert (first_call.user_frame, second_call.user_frame) == ("graph_breaks.py:20", "graph_breaks.py:21")
    # Dynamo restarts 2/1 once after building its graph (the float from .item() becomes dynamic): the
    # thrown-away attempt's graph is kept in the trace but not counted, as torch does not count it.
    restarted = [a for a in graph_breaks.trace().artifacts if a.compile_id == "2/1" and a.metadata.get("attempt")]
    assert restarted, "2/1 is no longer restarted: this test no longer covers restarts"
    assert [c.graphs for c in facts.compiles] == [1] * 6
    check = graph_breaks.trace().info.totals_check
    assert check["mismatches"] == [] and check["tracer"] == check["torch"]


def _single_process(folder: Path) -> list[Path]:
    """Each process's own trace (a merged ``-ranks.json`` is the ranks' file: load_merged reads it)."""
    return sorted(path for path in folder.glob("*/*.json") if not path.name.endswith("-ranks.json"))


@pytest.mark.parametrize("trace_file", _single_process(CUDA_TRACES), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recorded_cuda_traces_show_triton_and_cuda_graphs(trace_file: Path):
    trace = load(trace_file)
    assert trace.info.device == "cuda" and trace.info.status == "ok"
    fired = _fired(trace)
    if trace.info.cache_mode == "warm":
        # Every compile found its result in the caches: no code generation at all.
        assert analyze(trace).cache_counts["fx_graph"]["hit"] >= 1
        assert "torch._inductor.codegen.triton:TritonKernel.codegen_kernel" not in fired
        return
    if "torch._inductor.compile_fx:compile_fx_inner" not in fired:
        return  # an aot_eager example: nothing for Inductor to generate
    assert "torch._inductor.codegen.triton:TritonKernel.codegen_kernel" in fired
    if not trace_file.name.startswith("max_autotune"):
        # max_autotune's one kernel is a matmul template with the bias and relu fused in: the
        # scheduler generates it with codegen_template, not codegen_node.
        assert "torch._inductor.codegen.simd:SIMDScheduling.codegen_node" in fired
    if trace_file.name.startswith("reduce_overhead"):
        assert "torch._inductor.cudagraph_trees:cudagraphify_impl" in fired
        assert "torch._inductor.cudagraph_trees:CUDAGraphTreeManager.record_function" in fired
    code = [a.payload for a in trace.artifacts if a.kind == "code" and a.payload]
    assert any("@triton.jit" in text for text in code)


def test_cuda_traces_are_committed_and_cover_the_cuda_only_targets():
    files = _single_process(CUDA_TRACES)
    assert files, "record them on the GPU machine: python -m tracers record --device cuda"
    fired = set().union(*(_fired(load(path)) for path in files))
    assert CUDA_ONLY <= fired


def test_trace_file_is_chrome_trace_event_json(mlp_cold):
    raw = json.loads(mlp_cold.trace_path.read_text())
    assert raw["displayTimeUnit"] == "ms"
    events = raw["traceEvents"]
    for event in events:
        assert {"ph", "name", "pid", "tid"} <= event.keys()
        if event["ph"] == "X":
            assert isinstance(event["ts"], (int, float)) and event["dur"] >= 0
            assert event["cat"] in STAGE_ORDER or event["cat"] == "user"
        elif event["ph"] == "i":
            assert event["s"] == "t" and event["cat"].startswith("artifact.")
        else:
            assert event["ph"] == "M"
    info = raw["otherData"]["torch_compile_walkthrough"]
    for key in ("format_version", "tool_version", "torch_version", "torch_git_sha", "python", "device",
                "cache_mode", "command", "status"):
        assert info[key] not in (None, ""), key
    assert info["command"][-1].endswith("mlp.py")
    assert not list(mlp_cold.trace_path.parent.glob(".*")), "no temporary file left behind"
