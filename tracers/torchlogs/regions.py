"""Torch's own timed regions (``dynamo_timed``, written as ``chromium_event`` records) placed on the stages table."""

from __future__ import annotations

import re
from functools import lru_cache

# A log has no hook spans, only the regions torch times itself: ``dynamo_timed("name")`` in torch's source
# (torch/_dynamo/utils.py; names as of v2.13.0, e.g. ``bytecode_tracing`` in convert_frame.py,
# ``GraphLowering.run`` in _inductor/graph.py). Each is placed on the stage whose chapter explains it;
# the first pattern that matches wins, a name none matches takes its enclosing region's stage.
REGION_MODULE = "dynamo_timed"  # the span target's module part: torch's region, not a hooked function
_STAGE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("compiled_autograd", r"compiled_autograd.*"),
    ("cache", (r"fx_graph_cache.*|AOTAutogradCache\..*|inductor_codecache_torch_key|TritonBundler\..*"
              r"|GraphPickler\..*|CompiledArtifact\..*|CacheBase\..*")),
    ("frame", (r"dynamo|entire_frame_compile|compile_attempt_\d+|gc|fullgraph_capture|compiler_collective"
              r"|precompile_load_guards")),
    ("bytecode", r"bytecode_tracing|invoke_subgraph_.*"),
    ("guards", r"build_guards|precompile_build_guards"),
    ("graph", r"insert_deferred_runtime_asserts|backend_compile|OutputGraph\..*"),
    ("partition", r"min_cut_rematerialization_partition|default_partition"),
    ("aot", (r"create_aot_dispatcher_function|aot_.*|_recursive_joint_graph_passes|pass\.joint_graph_passes\..*"
            r"|entire_backward_compile|compile_fx\.<locals>\..*")),
    # before the patterns below: pass names hold other stages' words (decompose_triton_kernel_wrapper_functional)
    ("inductor", r"_recursive_(pre|post)_grad_passes|pass\..*"),
    ("autotune", (r"select_algorithm.*|autotune.*|.*[Aa]utotun.*|CUTLASS.*|cutlass_.*|benchmark_.*"
                 r"|collective_compute_do_bench")),
    ("lowering", r"GraphLowering\.run"),
    ("scheduling", r"Scheduler\..*|generate_kernel_code_from_nodes"),
    ("wrapper", r".*WrapperCodegen\.generate|CppWrapper\w*\.generate|GraphLowering\.codegen.*"),
    ("load", r"code_gen|GraphLowering\.compile_to_.*|PyCodeCache\..*|async_compile\.wait|reload_kernel_in_parent"),
    ("triton", r"async_compile\.precompile|triton_.*|.*[Tt]riton.*"),
    ("cpp", r"compile_file|aoti_.*"),
    ("cudagraphs", r"cudagraph.*|CUDAGraph.*"),
    ("inductor", (r"inductor_.*|fx_codegen_and_compile|compile_fx_inner|additional_fake_tensor_prop"
                 r"|convert_conv_weights_to_channels_last")),
)
_COMPILED = tuple((stage, re.compile(f"^(?:{pattern})$")) for stage, pattern in _STAGE_PATTERNS)
_DEFAULT_STAGE = "frame"


@lru_cache(maxsize=4096)  # a log names few regions, each many times (650,000 regions: 19 patterns tried for each)
def stage_of(region: str, enclosing_stage: str | None) -> str:
    """The stage a region of torch's belongs to; unknown names inherit their enclosing region's."""
    for stage, pattern in _COMPILED:
        if pattern.match(region):
            return stage
    return enclosing_stage or _DEFAULT_STAGE


def target_of(region: str) -> str:
    """The span target for a region: ``dynamo_timed:<torch's name>`` (labels show the name as torch wrote it)."""
    return f"{REGION_MODULE}:{region}"
