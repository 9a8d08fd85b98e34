"""Time outside every compile is not charged to one (issue 54 item 5): C++ builds with no compile id that ended
before the compile began."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tracers.torchlogs.test_messy import _record, _region
from tracers.analysis.report_model import build_report
from tracers.analysis.trace_facts import analyze
from tracers.terminal.style import Style
from tracers.terminal.summary import render_report
from tracers.torchlogs.convert import OUTSIDE
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

_FRAME = (0, 0)
_IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


def _build(start_us: float, end_us: float, compile_id: str | None) -> str:
    frame = _FRAME if compile_id else None
    return _region("B", "compile_file", start_us, compile_id, frame) + \
        _region("E", "compile_file", end_us, compile_id, frame)


def _log(builds_before: bool) -> str:
    """Three seconds of C++ builds with no compile id, then a 1.2 s compile whose own C++ build is a tenth of it."""
    before = _build(1_000_000.0, 2_500_000.0, None) + _build(2_500_000.0, 4_000_000.0, None) if builds_before else ""
    return "".join([
        _record({"str": ["/srv/prog.py", 0]}),
        before,
        _region("B", "dynamo", 5_000_000.0, "0/0", _FRAME),
        _region("B", "bytecode_tracing", 5_000_100.0, "0/0", _FRAME),
        _region("E", "bytecode_tracing", 6_000_000.0, "0/0", _FRAME),
        _build(6_000_000.0, 6_120_000.0, "0/0"),
        _record({"dynamo_output_graph": {"sizes": {}}, **_IDS}, "class GraphModule(torch.nn.Module):\n    ..."),
        _record({"compilation_metrics": {"co_name": "f", "co_filename": "/srv/prog.py", "co_firstlineno": 1}, **_IDS}),
        _region("E", "dynamo", 6_200_000.0, "0/0", _FRAME),
    ])


def _read(tmp_path: Path, text: str):
    path = tmp_path / "dedicated_log_torch_trace_o1.log"
    path.write_text(text, encoding="utf-8")
    return load_logs(path)


def test_builds_before_the_compile_are_no_share_of_it(tmp_path: Path) -> None:
    """No "C++ codegen took 100% of compile": the builds outside are records of their own, said in the notes."""
    loaded = _read(tmp_path, _log(True))
    trace = loaded.logs[0].trace
    text = render_report(build_report(trace), Style(False))
    assert "C++ codegen took" not in text
    assert loaded.logs[0].problems.counts[OUTSIDE] == 2 and any("outside every compile" in n for n in loaded.notes())
    outside = [artifact for artifact in trace.artifacts if artifact.name == "compile_file (outside every compile)"]
    assert [artifact.metadata["ms"] for artifact in outside] == [1500.0, 1500.0]
    assert [span.compile_id for span in trace.spans if span.target.endswith("compile_file")] == ["0/0"]
    assert analyze(trace).compiles[0].time_ns == 1_200_000_000


def test_a_log_that_compiled_nothing_keeps_its_regions(tmp_path: Path) -> None:
    """The other side: builds in a log with no compile (a worker's) stay its timeline, nothing to charge."""
    text = _record({"str": ["/srv/prog.py", 0]}) + _build(1_000_000.0, 2_500_000.0, None)
    trace = _read(tmp_path, text).logs[0].trace
    assert [span.target for span in trace.spans] == ["dynamo_timed:compile_file"]
    assert not any(artifact.name.endswith("(outside every compile)") for artifact in trace.artifacts)


def test_a_log_without_outside_builds_is_unchanged(tmp_path: Path) -> None:
    loaded = _read(tmp_path, _log(False))
    assert not loaded.logs[0].problems.counts[OUTSIDE]
    assert len(loaded.logs[0].trace.spans) == 3
