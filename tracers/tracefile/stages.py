"""The stages table: the torch.compile pipeline in order, and the entry points that mark each stage."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """One entry point, written ``module:qualname`` so the module is never ambiguous."""

    module: str
    qualname: str
    stage: str

    @property
    def name(self) -> str:
        return f"{self.module}:{self.qualname}"

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.qualname}"

    @property
    def short(self) -> str:
        """The last two parts of the dotted name, e.g. ``Scheduler.fuse_nodes``."""
        parts = self.qualname.split(".")
        return ".".join(parts[-2:]) if len(parts) > 1 else f"{self.module.rsplit('.', 1)[-1]}.{parts[0]}"

    @property
    def source_path(self) -> str:
        """The defining file inside a torch tree, e.g. ``torch/_dynamo/convert_frame.py``."""
        return self.module.replace(".", "/") + ".py"


@dataclass(frozen=True)
class Stage:
    id: str
    title: str
    chapter: str  # the docs page that explains this stage: docs/<chapter>.md (may not exist yet)
    targets: tuple[Target, ...]


def _stage(stage_id: str, title: str, chapter: str, *names: str) -> Stage:
    targets = []
    for name in names:
        module, _, qualname = name.partition(":")
        targets.append(Target(module, qualname, stage_id))
    return Stage(stage_id, title, chapter, tuple(targets))


# Order is pipeline order. Entry points are chosen to be called once per compile step, never
# once per call of the compiled program, so the tracer costs nothing on the hot path.
STAGES: tuple[Stage, ...] = (
    _stage(
        "entry", "torch.compile entry", "chapters/01-entry",
        "torch:compile",
        "torch._dynamo.eval_frame:_optimize",
        "torch._dynamo.eval_frame:_TorchDynamoContext.__call__",
        # torch.compiler.reset() and explain() call it too: it empties Dynamo's caches and restarts its
        # compile ids at 0/0, so the trace counts resets to keep compiles apart (compile_identity.py).
        "torch._dynamo:reset",
    ),
    _stage(
        "frame", "Frame evaluation (PEP 523)", "chapters/02-frame-evaluation",
        "torch._dynamo.convert_frame:ConvertFrame.__call__",
        "torch._dynamo.convert_frame:ConvertFrameAssert.__call__",
        "torch._dynamo.convert_frame:_compile",
        "torch._dynamo.convert_frame:compile_frame",
        "torch._dynamo.convert_frame:trace_frame",
    ),
    _stage(
        "bytecode", "Bytecode tracing", "chapters/03-bytecode-tracing",
        "torch._dynamo.symbolic_convert:InstructionTranslatorBase.run",
    ),
    _stage(
        "guards", "Guards", "chapters/04-guards",
        "torch._dynamo.guards:CheckFunctionManager.__init__",
    ),
    _stage(
        "graph", "FX graph and backend call", "chapters/07-fx-graphs-and-backends",
        "torch._dynamo.output_graph:OutputGraph.compile_subgraph",
        "torch._dynamo.output_graph:OutputGraph.compile_and_call_fx_graph",
        "torch._dynamo.output_graph:OutputGraph.call_user_compiler",
    ),
    _stage(
        "aot", "AOTAutograd", "chapters/08-aot-autograd",
        "torch._dynamo.backends.common:AotAutograd.__call__",
        "torch._functorch.aot_autograd:aot_module_simplified",
        "torch._functorch.aot_autograd:create_aot_state",
        "torch._functorch._aot_autograd.graph_compile:aot_stage1_graph_capture",
        "torch._functorch._aot_autograd.graph_compile:aot_stage2_compile",
    ),
    _stage(
        "partition", "Partitioner", "chapters/08-aot-autograd",
        "torch._functorch.partitioners:min_cut_rematerialization_partition",
    ),
    _stage(
        "inductor", "Inductor entry", "chapters/09-inductor",
        "torch._inductor.compile_fx:compile_fx",
        "torch._inductor.compile_fx:compile_fx_inner",
        "torch._inductor.compile_fx:fx_codegen_and_compile",
    ),
    _stage(
        "lowering", "Lowering to Inductor IR", "chapters/09-inductor",
        "torch._inductor.graph:GraphLowering.run",
    ),
    # Lowering asks this for every matmul or convolution; with one candidate it returns it at once,
    # with several (max-autotune) do_autotuning compiles and benchmarks them, one Benchmarker.benchmark per candidate
    # (the first of a process also sets up the benchmarker and the GPU driver: one-time, see analysis/one_time.py).
    _stage(
        "autotune", "Kernel selection and autotuning", "chapters/15-cuda-graphs",
        "torch._inductor.select_algorithm:autotune_select_algorithm",
        "torch._inductor.select_algorithm:AlgorithmSelectorCache.do_autotuning",
        "torch._inductor.runtime.benchmarking:Benchmarker.benchmark",
    ),
    _stage(
        "scheduling", "Scheduling and fusion", "chapters/10-scheduling",
        "torch._inductor.scheduler:Scheduler.__init__",
        "torch._inductor.scheduler:Scheduler.fuse_nodes",
        "torch._inductor.scheduler:Scheduler.codegen",
        # Called once per kernel written (C++, Triton, and each extern call of the wrapper) with its nodes
        # and name, provenance tracking on or off: where the trace reads which user lines each kernel came
        # from (capture/kernel_origins.py).
        "torch._inductor.debug:set_kernel_post_grad_provenance_tracing",
    ),
    _stage(
        # Once per process (cached): the first use of the CPU's vector ISA (a C++ kernel's codegen, or a cache key)
        # compiles a test program per ISA to learn what the CPU supports. Its own stage, so that one-time cost is
        # neither put on a kernel's user line nor read as codegen that a cache hit should have skipped.
        "cpu_isa", "CPU vector-ISA check", "chapters/11-cpp-codegen",
        "torch._inductor.cpu_vec_isa:VecISA.check_build",
    ),
    _stage(
        "cpp", "C++ codegen", "chapters/11-cpp-codegen",
        "torch._inductor.codegen.cpp:CppScheduling.codegen_node",
    ),
    _stage(
        "triton", "Triton codegen", "chapters/12-triton-codegen",
        "torch._inductor.codegen.simd:SIMDScheduling.codegen_node",
        "torch._inductor.codegen.triton:TritonKernel.codegen_kernel",
    ),
    _stage(
        "wrapper", "Wrapper code", "chapters/13-wrapper",
        "torch._inductor.codegen.wrapper:PythonWrapperCodegen.generate",
    ),
    _stage(
        "load", "Module load", "chapters/13-wrapper",
        "torch._inductor.graph:GraphLowering.compile_to_module",
    ),
    _stage(
        # Once per process (cached; the header itself once per machine, on disk): the first C++ build precompiles the
        # header every kernel includes. Its own stage, so the one-time build is not read as the first graph's load.
        "cpp_header", "C++ precompiled header", "chapters/11-cpp-codegen",
        "torch._inductor.codecache:_precompile_header",
    ),
    _stage(
        "cache", "Caches", "chapters/14-caches",
        "torch._inductor.codecache:FxGraphCache.load_with_key",
        "torch._functorch._aot_autograd.autograd_cache:AOTAutogradCache.try_load",
    ),
    _stage(
        "cudagraphs", "CUDA graphs", "chapters/15-cuda-graphs",
        "torch._inductor.cudagraph_trees:cudagraphify_impl",
        "torch._inductor.cudagraph_trees:CUDAGraphTreeManager.record_function",
        # Every "skipping cudagraphs due to ..." goes through here, at compile time or on a first call.
        "torch._inductor.cudagraph_utils:log_cudagraph_skip_and_bump_counter",
    ),
    # Runs when .backward() is called, not when torch.compile is: the autograd graph is captured and
    # handed to Dynamo as a new frame, so the stages above repeat beneath it.
    _stage(
        "compiled_autograd", "Compiled autograd", "chapters/16-compiled-autograd",
        "torch._dynamo.compiled_autograd:AutogradCompilerInstance.begin_capture",
        "torch._dynamo.compiled_autograd:AutogradCompilerInstance.end_capture",
    ),
)

USER_STAGE = "user"  # the stage of the regions a script marks itself (``from tracers import region``)

STAGE_BY_ID: dict[str, Stage] = {stage.id: stage for stage in STAGES}
STAGE_ORDER: dict[str, int] = {stage.id: index for index, stage in enumerate(STAGES)}


def all_targets() -> tuple[Target, ...]:
    return tuple(target for stage in STAGES for target in stage.targets)


TARGET_BY_NAME: dict[str, Target] = {target.name: target for target in all_targets()}
