"""CUDA-graph skips: the reason torch logs is filed on the span of the call that logged it."""

from __future__ import annotations

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.terminal.summary import Style, render
from tracers.capture import cudagraph_skips
from tracers.capture.recorder import Recorder
from tracers.tracefile.chrome import load
from tracers.tracefile.stages import TARGET_BY_NAME

from tests.conftest import ROOT

pytestmark = pytest.mark.torch

CUDA_TRACE = ROOT / "docs" / "_traces" / "cuda" / "2.11.0" / "reduce_overhead-cuda-cold.json"
CPU_TRACE = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "reduce_overhead-cpu-cold.json"


def test_the_message_is_kept_and_its_first_line_is_the_reason():
    recorder = Recorder()
    cudagraph_skips.install(recorder)
    span = recorder.enter(TARGET_BY_NAME[cudagraph_skips.TARGET], ())
    message = "skipping cudagraphs due to mutated inputs (1 instances). Found from :\n  File \"x.py\", line 3"
    recorder.observe(cudagraph_skips.TARGET, (message,), None)
    recorder.exit(span, None)
    (artifact,) = recorder.artifacts
    assert artifact.span == span.id and artifact.payload == message
    assert artifact.metadata == {"reason": "skipping cudagraphs due to mutated inputs (1 instances). Found from :"}


def test_a_call_without_a_message_files_nothing():
    recorder = Recorder()
    cudagraph_skips.install(recorder)
    recorder.observe(cudagraph_skips.TARGET, (), None)
    assert recorder.artifacts == []


def test_recorded_reduce_overhead_replays_step_and_skips_the_in_place_function():
    if not CUDA_TRACE.exists():
        pytest.skip("record it on the GPU machine")
    trace = load(CUDA_TRACE)
    by_id = {span.id: span for span in trace.spans}
    region_of = {}
    for span in trace.spans:
        top = span
        while top.parent is not None:
            top = by_id[top.parent]
        region_of.setdefault(span.target, set()).add(top.target)
    # Warm-up on the first call (after compiling), recording on the second, plain replay on the third.
    assert region_of["torch._inductor.cudagraph_trees:CUDAGraphTreeManager.record_function"] == {"user:step, call 2"}
    assert region_of[cudagraph_skips.TARGET] == {"user:accumulate, call 1"}
    (skip,) = [artifact for artifact in trace.artifacts if artifact.name == "cudagraph_skip"]
    assert "mutated inputs" in skip.metadata["reason"] and "reduce_overhead.py" in skip.payload
    assert "CUDA graphs skipped" in render(trace, analyze(trace), Style(False))


def test_on_cpu_reduce_overhead_records_no_cuda_graphs_and_logs_no_skip():
    trace = load(CPU_TRACE)
    assert not {span.stage for span in trace.spans} & {"cudagraphs"}
    assert not [artifact for artifact in trace.artifacts if artifact.kind == "cudagraphs"]
