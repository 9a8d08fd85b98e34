"""``--device cuda`` makes the GPU the default device without a torch function mode, so Dynamo sees the
user's program: graph breaks keep the user's lines. Checked on the CPU through the same mechanism."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SCRIPTS, run_python

pytestmark = pytest.mark.torch

# Runs the script under the tracer with the default device set either way, and reports the breaks'
# locations and how many torch function modes were on the stack.
_PROBE = """
import json, runpy, sys, torch
from tracers.analysis.trace_facts import analyze
from tracers.capture.devices import set_default_backend
from tracers.capture.session import TraceSession
if sys.argv[1] == "function-mode":
    torch.set_default_device("cpu")  # what --device cuda did before, with the CPU for the GPU
else:
    set_default_backend(torch)  # what --device cuda does now (tracers.capture.devices.make_default), CPU for GPU
modes = torch._C._len_torch_function_stack()
with TraceSession() as session:
    runpy.run_path(sys.argv[2], run_name="__main__")
print(json.dumps({"modes": modes, "breaks": [b.location for b in analyze(session.trace).graph_breaks]}))
"""


@pytest.mark.parametrize("how", ["default-tensor-type", "function-mode"])
def test_break_location_with_a_default_device(how):
    script = SCRIPTS / "norm_break.py"
    result = run_python(["-c", _PROBE, how, str(script)])
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    line = next(n for n, text in enumerate(script.read_text().splitlines(), 1) if "the break" in text)
    if how == "default-tensor-type":
        assert found["modes"] == 0
        assert found["breaks"] == [f"{script}:{line}"]
    else:  # the problem the tracer no longer causes: the break is reported inside torch's mode
        assert found["modes"] == 1
        assert len(found["breaks"]) == 1 and "torch/utils/_device.py" in found["breaks"][0]


def _trace_with_stages(*stages: str):
    from tracers.tracefile.events import RunInfo, Span, Trace

    info = RunInfo(1, "t", "2.13.0", "", "3.11", "Linux", "cpu", "", "cold", [], "")
    spans = [Span(index, None, f"torch.x:{stage}", stage, 1, "MainThread", 0, 0, 1) for index, stage in enumerate(stages)]
    return Trace(info, spans, [])


def test_the_device_a_trace_is_named_for_is_what_the_run_used():
    from tracers.capture.devices import device_used

    # Triton kernels or CUDA graphs mean the script compiled for a GPU, whatever --device said.
    assert device_used("cpu", _trace_with_stages("frame", "inductor", "triton")) == "cuda"
    assert device_used("cpu", _trace_with_stages("frame", "cudagraphs")) == "cuda"
    # A CPU compile in a process that never initialized CUDA (this CPU build cannot) stays cpu.
    assert device_used("cpu", _trace_with_stages("frame", "inductor", "cpp")) == "cpu"
    assert device_used("cuda", _trace_with_stages("frame")) == "cuda"
