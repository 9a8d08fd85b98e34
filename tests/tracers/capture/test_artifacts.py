"""Artifacts come from torch's own structured trace, tied to the span and compile id that produced them."""

from __future__ import annotations

import json

import pytest
import torch
import torch._logging

from tracers.capture.session import TraceSession
from tracers.tracefile.chrome import TraceFileError, load, write_atomic
from tracers.tracefile.stages import TARGET_BY_NAME

pytestmark = pytest.mark.torch


def _span_target(trace, artifact) -> str:
    return next(span.target for span in trace.spans if span.id == artifact.span)


def test_inductor_artifacts_are_kept_and_tied_to_their_step(mlp_cold):
    trace = mlp_cold.trace()
    by_name = {}
    for artifact in trace.artifacts:
        by_name.setdefault(artifact.name, []).append(artifact)
    for name in ("dynamo_output_graph", "aot_forward_graph", "aot_backward_graph", "inductor_post_grad_graph",
                 "dynamo_cpp_guards_str", "inductor_output_code", "compilation_metrics"):
        assert name in by_name, name
        assert all(a.compile_id == "0/0" for a in by_name[name]), name
    graph = by_name["dynamo_output_graph"][0]
    assert "torch.relu" in graph.payload or "relu" in graph.payload
    assert _span_target(trace, graph).endswith("OutputGraph.compile_and_call_fx_graph")
    assert _span_target(trace, by_name["dynamo_cpp_guards_str"][0]).endswith("CheckFunctionManager.__init__")
    code = by_name["inductor_output_code"]
    assert len(code) == 2  # forward and backward
    assert all("cpp_fused" in a.payload for a in code)
    assert all(TARGET_BY_NAME[_span_target(trace, a)].stage in {"inductor", "load", "lowering"} for a in code)
    metrics = by_name["compilation_metrics"][0].metadata
    assert metrics["co_name"] == "forward" and metrics["graph_op_count"] == 5


def test_inductor_ir_before_and_after_fusion_is_kept_without_console_output(mlp_cold):
    trace = mlp_cold.trace()
    ir = [a for a in trace.artifacts if a.kind == "ir"]
    names = [a.name for a in ir]
    assert names.count("ir_pre_fusion") == names.count("ir_post_fusion") == 2  # forward and backward
    pre = next(a for a in ir if a.name == "ir_pre_fusion")
    post = next(a for a in ir if a.name == "ir_post_fusion")
    assert pre.payload.startswith("BEFORE FUSION") and post.payload.startswith("AFTER FUSION")
    assert "FusedSchedulerNode" in post.payload and "FusedSchedulerNode" not in pre.payload
    assert pre.compile_id == "0/0"
    assert "BEFORE FUSION" not in mlp_cold.stderr, "torch's console handlers never see the IR"


def test_trace_size_stays_small_and_noise_is_counted_not_stored(mlp_cold):
    trace = mlp_cold.trace()
    assert trace.info.dropped_records.get("chromium_event", 0) > 0
    assert all(a.name != "chromium_event" for a in trace.artifacts)
    # Cache-key details (tens of KB each) are not stored even when present.
    assert all(a.payload is None for a in trace.artifacts if a.kind == "cache")


def test_graph_break_records_keep_the_users_part_without_tracer_frames(graph_breaks):
    trace = graph_breaks.trace()
    breaks = [a for a in trace.artifacts if a.kind == "break"]
    assert breaks[0].metadata["title"] == "Failed to trace builtin operator"
    assert "print" in breaks[0].metadata["explanation"]
    for artifact in breaks:
        assert "Traceback (most recent call last)" not in artifact.payload
        assert "tracers/" not in artifact.payload and "<frozen runpy>" not in artifact.payload
        assert "graph_breaks.py" in artifact.payload
    bytecode = {a.name.rsplit("_", 2)[-2] for a in trace.artifacts if a.kind == "bytecode"}
    assert bytecode == {"ORIGINAL", "MODIFIED"}


@pytest.mark.parametrize("keep_code", [True, False])
def test_no_code_drops_generated_code_but_keeps_the_record(keep_code):
    with TraceSession(keep_code=keep_code) as session:
        torch._logging.trace_structured("inductor_output_code", payload_fn=lambda: "def call(args): ...")
        torch._logging.trace_structured("dynamo_output_graph", payload_fn=lambda: "graph():")
    code, graph = session.recorder.artifacts
    assert (code.kind, code.payload_size) == ("code", len("def call(args): ..."))
    assert code.payload == ("def call(args): ..." if keep_code else None)
    assert graph.payload == "graph():"


def test_shape_records_keep_their_facts_but_not_the_stack_that_made_them():
    with TraceSession() as session:
        torch._logging.trace_structured(
            "create_symbol", metadata_fn=lambda: {"symbol": "s0", "val": 16, "source": "L['a'].size()[0]",
                                                  "stack": [{"line": 1, "name": "f"}] * 50})
    (record,) = session.recorder.artifacts
    assert record.kind == "shapes"
    assert record.metadata == {"symbol": "s0", "val": 16, "source": "L['a'].size()[0]"}


def test_collector_leaves_torchs_logger_as_it_found_it():
    from torch._logging._internal import trace_log

    handlers, level = list(trace_log.handlers), trace_log.level
    with TraceSession():
        assert len(trace_log.handlers) == len(handlers) + 1
    assert trace_log.handlers == handlers and trace_log.level == level


def test_trace_round_trips_through_the_file(graph_breaks, tmp_path):
    trace = graph_breaks.trace()
    copy = write_atomic(trace, tmp_path / "copy.json", keep_paths=True)
    again = load(copy)
    assert again.info == trace.info
    assert [(s.id, s.parent, s.target, s.compile_id, s.depth) for s in again.spans] == \
           [(s.id, s.parent, s.target, s.compile_id, s.depth) for s in trace.spans]
    assert again.artifacts == trace.artifacts


@pytest.mark.parametrize("content,message", [
    ('{"traceEvents": [', "not valid JSON"),
    ('{"traceEvents": []}', "not a trace written by this tool"),
    ('[1, 2]', "not a trace written by this tool"),
    ('{"traceEvents": [], "otherData": {"torch_compile_walkthrough": {"format_version": 99}}}', "newer"),
    ('{"traceEvents": [], "otherData": {"torch_compile_walkthrough": {"format_version": "1"}}}', "not a format version"),
    ('{"traceEvents": {}, "otherData": {"torch_compile_walkthrough": {"format_version": 1}}}', "damaged"),
])
def test_bad_trace_files_give_one_clear_reason(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(TraceFileError, match=message) as raised:
        load(path)
    assert "\n" not in str(raised.value)


def test_what_a_trace_file_holds_that_cannot_be_used_is_left_out_and_counted(tmp_path):
    """A span without its fields, a span that is its own parent: read as a partial trace, each counted."""
    from tracers.tracefile.validation import Dropped

    path = tmp_path / "odd.json"
    span = {"ph": "X", "ts": 0, "dur": 5, "args": {"id": 1, "parent": 1, "target": "m:f", "stage": "frame",
                                                   "thread_id": 1, "depth": 0}}
    path.write_text(json.dumps({"traceEvents": [{"ph": "X"}, span],
                                "otherData": {"torch_compile_walkthrough": {"format_version": 1}}}))
    dropped = Dropped()
    trace = load(path, dropped)
    assert [(s.id, s.parent, s.duration_ns) for s in trace.spans] == [(1, None, 5000)]
    assert trace.info.torch_version == "unknown"
    assert dropped["spans without their fields"] == 1 and dropped["parent links cut (a cycle, or nested too deep)"] == 1


def test_partial_trace_of_a_failed_run_is_valid_json(tmp_path):
    session = TraceSession()
    with pytest.raises(RuntimeError):
        with session:
            torch.compile(lambda x: x * 3, backend="eager")(torch.ones(2))
            raise RuntimeError("boom")
    path = write_atomic(session.trace, tmp_path / "partial.json")
    raw = json.loads(path.read_text())
    assert raw["otherData"]["torch_compile_walkthrough"]["status"] == "error"
    assert load(path).info.error == "RuntimeError: boom"
