"""Deep mode: viztracer's function calls on our clock, in the same file, on their own track."""

from __future__ import annotations

import json

import pytest
import torch

from tracers.capture.session import TraceSession
from tracers.tracefile.chrome import load, to_chrome, write_atomic

from tests.conftest import SCRIPTS, run_python

pytestmark = pytest.mark.torch

viztracer = pytest.importorskip("viztracer")


def test_deep_calls_line_up_with_the_stage_spans_and_survive_the_file(tmp_path):
    from tracers.capture.deep import DeepTracer

    torch._dynamo.reset()
    with TraceSession(deep=DeepTracer(min_duration_us=100)) as session:
        torch.compile(lambda x: torch.cos(x) * 2, backend="aot_eager")(torch.randn(4))
    trace = session.trace
    span = next(s for s in trace.spans if s.target.endswith("convert_frame:_compile"))
    deep = [d for d in trace.deep_events if d.name.startswith("_compile (") and "convert_frame" in d.name]
    assert len(deep) == 1
    assert abs(deep[0].start_ns - span.start_ns) < 1_000_000  # within a millisecond: same clock
    assert abs(deep[0].duration_ns - span.duration_ns) < 1_000_000
    assert all(d.duration_ns >= 100_000 for d in trace.deep_events), "the minimum duration bounds the size"

    chrome = to_chrome(trace)
    names = [e["args"]["name"] for e in chrome["traceEvents"] if e.get("name") == "process_name"]
    assert names == ["torch.compile", "Python functions (viztracer, calls ≥ 100 µs)"]
    again = load(write_atomic(trace, tmp_path / "deep.json", keep_paths=True))  # the same data back
    assert again.deep_events == trace.deep_events
    assert [s.id for s in again.spans] == [s.id for s in trace.spans]


def test_deep_flag_without_viztracer_is_one_clear_line(tmp_path):
    code = (
        "import sys; sys.modules['viztracer'] = None; from tracers.__main__ import main; "
        f"sys.exit(main(['trace', '--deep', '--out', {str(tmp_path)!r}, {str(SCRIPTS / 'exits.py')!r}, '0']))"
    )
    result = run_python(["-c", code])
    assert result.returncode == 2
    assert result.stderr.strip() == "trace: --deep needs viztracer: pip install viztracer"
    assert not list(tmp_path.iterdir())


def test_deep_trace_from_the_command_line(tmp_path):
    result = run_python(["-m", "tracers", "trace", "--deep", "--deep-min-us", "500", "--quiet", "--out", str(tmp_path),
                         str(SCRIPTS / "exits.py"), "0"])
    assert result.returncode == 0, result.stderr
    raw = json.loads((tmp_path / "exits-cpu-cold.json").read_text())
    assert raw["otherData"]["torch_compile_walkthrough"]["deep_min_duration_us"] == 500
