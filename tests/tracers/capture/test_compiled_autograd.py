"""Compiled autograd through the tracer (aot_eager): its capture stage fires once and nests as chapter 16 says."""

from __future__ import annotations

import pytest

from tracers.tracefile.events import Trace

from tests.conftest import EXAMPLES, CliRun, run_python, run_trace
from tests.site.test_chapter_16 import (
    BEGIN,
    END,
    capture_spans,
    check_backward_graph,
    check_capture_nesting,
    check_hook_traced_by_dynamo,
    check_no_lazy_backward,
)

pytestmark = pytest.mark.torch

EXAMPLE = EXAMPLES / "compiled_autograd.py"


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    return run_trace(EXAMPLE, tmp_path_factory.mktemp("compiled-autograd"), script_args=("aot_eager",))


@pytest.fixture(scope="module")
def trace(traced: CliRun) -> Trace:
    assert traced.returncode == 0, traced.stderr[-3000:]
    return traced.trace()


def _result_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("loss "))


def test_tracing_does_not_change_the_result(traced):
    """The capture calls hooked methods while the compiled step's frame hook is set: the tracer's own
    frames must stay invisible to Dynamo (tracers/capture/dynamo_shield.py), or Dynamo compiles them."""
    plain = run_python([str(EXAMPLE), "aot_eager"])
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert traced.returncode == 0, traced.stderr[-3000:]
    assert _result_line(traced.stdout) == _result_line(plain.stdout)


def test_both_capture_targets_fire_once(trace):
    assert trace.info.targets_missing == {}
    begin, end = capture_spans(trace)
    assert (begin.stage, end.stage) == ("compiled_autograd", "compiled_autograd")
    assert {BEGIN, END} <= set(trace.info.targets_hooked)


def test_capture_nests_outside_dynamo_and_before_the_backward_compile(trace):
    check_capture_nesting(trace)


def test_dynamo_compiles_only_user_code_and_the_captured_graph(trace):
    frames = {span.frame.split(" (")[0] for span in trace.spans
              if span.target == "torch._dynamo.convert_frame:_compile" and span.frame}
    resumes = {name for name in frames if name.startswith("torch_dynamo_resume_in_train_step")}
    assert len(resumes) == 1 and frames - resumes == {"train_step", "forward"}, frames


def test_captured_graph_and_dynamos_graph_of_it(trace):
    check_backward_graph(trace)
    check_hook_traced_by_dynamo(trace)
    check_no_lazy_backward(trace)
