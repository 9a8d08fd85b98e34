"""A graph whose backend raised is no graph torch counts (issue 54 item 6): read from a log of that shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tracers.torchlogs.test_messy import _record, _region
from tracers.analysis.trace_facts import analyze
from tracers.torchlogs.convert import FAILED_GRAPH
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure


def _compile(frame_compile: int, start_us: float, fail_type: str | None) -> str:
    """One frame compile of ``f``: its graph, then its metrics (failed with ``fail_type``, or not)."""
    compile_id, frame = f"0/{frame_compile}", (0, frame_compile)
    ids = {"frame_id": 0, "frame_compile_id": frame_compile, "attempt": 0}
    failed = {"fail_type": fail_type, "fail_reason": "backend='flaky' raised:\nRuntimeError: boom"} if fail_type \
        else {"graph_op_count": 2}
    return "".join([
        _region("B", "dynamo", start_us, compile_id, frame),
        _record({"dynamo_output_graph": {"sizes": {"l_x_": [3]}}, **ids}, "class GraphModule(torch.nn.Module):\n ..."),
        _region("B", "backend_compile", start_us + 100, compile_id, frame),
        _region("E", "backend_compile", start_us + 200, compile_id, frame),
        _record({"compilation_metrics": {"co_name": "f", "co_filename": "/srv/prog.py", "co_firstlineno": 1,
                                         **failed}, **ids}),
        _region("E", "dynamo", start_us + 300, compile_id, frame),
    ])


def _facts(tmp_path: Path, text: str):
    path = tmp_path / "dedicated_log_torch_trace_b1.log"
    path.write_text(text, encoding="utf-8")
    trace = load_logs(path).logs[0].trace
    return trace, analyze(trace)


def test_a_graph_whose_backend_raised_is_not_counted(tmp_path: Path) -> None:
    """0/0 compiled; 0/1's backend raised (BackendCompilerFailed): torch counts 1 graph, and so do we. The graph
    handed to the backend is kept, named for what happened to it."""
    trace, facts = _facts(tmp_path, _compile(0, 1_000_000.0, None) + _compile(1, 2_000_000.0, "BackendCompilerFailed"))
    assert facts.graph_count == 1
    assert [compile_.graphs for compile_ in facts.compiles] == [1, 0]
    assert [artifact.compile_id for artifact in trace.artifacts if artifact.name == FAILED_GRAPH] == ["0/1"]


def test_a_compile_that_failed_after_its_backend_returned_keeps_its_graph(tmp_path: Path) -> None:
    """The other side: a failure that is not the backend's (the graph was compiled) leaves the graph counted."""
    _, facts = _facts(tmp_path, _compile(0, 1_000_000.0, "Unsupported"))
    assert [compile_.graphs for compile_ in facts.compiles] == [1]
