"""Executed lines: counted inside the watched torch functions only, and the trace hook is removed after."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import torch
import torch._dynamo.convert_frame as convert_frame

import tracers

from tracers.capture.lines import LineCounter, Watch, torch_relative, watch_for, watches_from_lock
from tracers.capture.session import TraceSession
from tracers.tracefile.chrome import load, write_atomic
import pytest

pytestmark = pytest.mark.torch


def _span_of(function) -> tuple[int, int]:
    lines, first = inspect.getsourcelines(function)
    return first, first + len(lines) - 1


def test_lines_are_counted_only_inside_hooked_functions_and_the_hook_is_removed(tmp_path):
    torch._dynamo.reset()
    before = sys.gettrace()
    with TraceSession(lines=LineCounter()) as session:
        torch.compile(lambda x: torch.tanh(x) - 1, backend="aot_eager")(torch.randn(3))
    assert sys.gettrace() is before
    trace = session.trace
    assert trace.info.lines_recorded
    counted = trace.executed_lines["torch/_dynamo/convert_frame.py"]
    start, end = _span_of(convert_frame._compile)
    inside_compile = [line for line in counted if start <= line <= end]
    assert inside_compile, "the frame compile ran lines of _compile"
    spans = [_span_of(fn) for fn in (convert_frame._compile, convert_frame.ConvertFrameAssert.__call__,
                                     convert_frame.ConvertFrame.__call__, convert_frame.compile_frame,
                                     convert_frame.trace_frame)]
    assert all(any(a <= line <= b for a, b in spans) for line in counted), "nothing outside the hooked spans"
    assert all(count >= 1 for count in counted.values())
    again = load(write_atomic(trace, tmp_path / "lines.json"))
    assert again.executed_lines == trace.executed_lines


def test_a_watch_covers_nested_functions_and_nothing_else():
    counter = LineCounter([Watch("torch/_dynamo/convert_frame.py", *_span_of(convert_frame._compile))])
    nested = convert_frame._compile.__code__.co_consts
    inner = next(const for const in nested if inspect.iscode(const))
    assert counter._path_of(inner) == "torch/_dynamo/convert_frame.py"
    assert counter._path_of(convert_frame.convert_frame.__code__) is None


def test_paths_are_relative_to_the_torch_tree():
    assert torch_relative("/x/site-packages/torch/_dynamo/guards.py") == "torch/_dynamo/guards.py"
    assert torch_relative("/home/me/torch/project/torch/fx/graph.py") == "torch/fx/graph.py"
    assert torch_relative("/x/numpy/core.py") is None
    assert watch_for(print) is None


def test_lock_spans_apply_only_to_the_torch_they_were_locked_for(tmp_path):
    lock = tmp_path / "lock.json"
    lock.write_text(json.dumps({"torch_version": "2.13.0+cpu", "symbols": [
        {"file": "torch/_dynamo/guards.py", "start": 10, "end": 20}], "excerpts": []}))
    watches, warning = watches_from_lock(str(lock), "2.13.0")
    assert watches == [Watch("torch/_dynamo/guards.py", 10, 20)] and warning is None
    watches, warning = watches_from_lock(str(lock), "2.15.0")
    assert watches == [] and "not 2.15.0" in warning
    watches, warning = watches_from_lock(str(tmp_path / "missing.json"), "2.13.0")
    assert watches == [] and "unreadable" in warning


def test_a_failing_optional_recorder_becomes_a_warning_not_a_lost_trace():
    class Broken(LineCounter):
        def stop(self) -> None:
            super().stop()
            raise ValueError("tool 3 is not in use")

    with TraceSession(lines=Broken()) as session:
        torch.compile(lambda x: x * 5, backend="eager")(torch.ones(2))
    assert session.info.status == "ok"
    assert session.info.warnings == [
        "executed lines could not be stopped cleanly: ValueError: tool 3 is not in use"]
    assert session.trace.spans


def test_counting_lines_never_hands_the_tracers_own_frames_to_dynamo():
    torch._dynamo.reset()

    def step(x):
        return torch.sin(x) + 1

    compiled = torch.compile(step, backend="aot_eager")
    with TraceSession(lines=LineCounter()) as session:
        for _ in range(3):
            compiled(torch.randn(4))
    conversions = [s for s in session.recorder.spans if s.target.endswith("ConvertFrame.__call__")]
    assert "step" in [s.frame.split(" ")[0] for s in conversions]
    # Other code of the process may be offered to Dynamo too (an audit hook an earlier test left installed runs
    # inside every import): what matters is that no frame of the tracer itself is.
    own = {path.name for path in Path(tracers.__file__).parent.rglob("*.py")} - {"__init__.py"}
    offered = {s.frame.split("(", 1)[1].split(":", 1)[0] for s in conversions if "(" in (s.frame or "")}
    assert not offered & own, offered
    assert session.trace.executed_lines, "lines were counted"
