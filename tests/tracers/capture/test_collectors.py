"""Every part ``TraceSession`` wires is a ``Collector``, started in the stated order and stopped in reverse; one that
fails to start or stop costs a warning, never the trace, and the others are still undone exactly."""

from __future__ import annotations

import pytest
import torch
import torch._dynamo

from tracers.capture import regions
from tracers.capture.collector import Collector
from tracers.capture.deep import DeepTracer
from tracers.capture.hooks import _current_value
from tracers.capture.lines import LineCounter
from tracers.capture.session import TraceSession
from tracers.capture.timing import CallTiming
from tracers.tracefile.chrome import load, write_atomic

pytestmark = pytest.mark.torch

ORDER = [
    "torch's counters",
    "the rank's facts",
    "the kernels' origins",
    "the autotuning results",
    "the CUDA-graph skips",
    "the call counts",
    "the module hooks added after compiling",
    "the module methods called through torch.compile's wrapper",
    "the Trainer's evaluation of the uncompiled model",
    "the data-dependent branches written as torch.where",
    "the process-group teardown",
    "Dynamo's rewritten code",
    "Inductor's IR logs",
    "torch's structured trace",
    "the hooks",
    "the recorder",
    "the call timings",
    "the script's regions",
    "executed lines",
    "deep mode",
]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _everything_on() -> TraceSession:
    """A session with every optional collector wired too."""
    return TraceSession(lines=LineCounter(), inductor_ir=True, timing=CallTiming(profile=False),
                        deep=DeepTracer(min_duration_us=1000))


def _compile_something() -> None:
    torch.compile(lambda x: torch.sin(x) * 2, backend="aot_eager")(torch.ones(3))


class Failing:
    """A collector that fails where it is told to, with ``error``."""

    what = "a failing part"

    def __init__(self, where: str, error: BaseException):
        self.where, self.error = where, error

    def start(self) -> None:
        if self.where == "start":
            raise self.error

    def stop(self) -> None:
        if self.where == "stop":
            raise self.error

    def contribute(self, trace) -> None:  # noqa: ANN001 - a Trace
        if self.where == "contribute":
            raise self.error


def _logged(session: TraceSession, log: list[tuple[str, str]]) -> None:
    """Note each collector's start, stop and contribution in ``log``, in the order they happen."""
    for collector in session.collectors:
        for step in ("start", "stop", "contribute"):
            real = getattr(collector, step)
            setattr(collector, step, lambda *args, _real=real, _step=step, _what=collector.what:
                    (log.append((_step, _what)), _real(*args))[1])


def test_every_collector_the_session_wires_is_one_and_their_order_is_the_stated_one():
    session = _everything_on()
    assert all(isinstance(collector, Collector) for collector in session.collectors), session.collectors
    assert [collector.what for collector in session.collectors] == ORDER
    assert [collector.what for collector in TraceSession().collectors] == \
        [what for what in ORDER if what not in ("Inductor's IR logs", "the call timings", "executed lines", "deep mode")]


def test_collectors_start_in_order_stop_in_reverse_then_contribute_in_stop_order():
    session = _everything_on()
    log: list[tuple[str, str]] = []
    _logged(session, log)
    with session:
        _compile_something()
    assert log == [("start", what) for what in ORDER] + [("stop", what) for what in reversed(ORDER)] \
        + [("contribute", what) for what in reversed(ORDER)]
    trace = session.trace
    assert trace.info.lines_recorded and trace.executed_lines and trace.deep_events and trace.info.runtime is not None
    assert trace.info.status == "ok"
    assert all("pip install depyf" in warning for warning in trace.info.warnings), trace.info.warnings


def _assert_undone(session: TraceSession, patches: list) -> None:  # noqa: ANN001 - hooks.Patch
    assert patches, "the hooks patched something"
    for patch in patches:
        assert _current_value(patch.owner, patch.attr) is patch.original, patch
    assert not session.recorder.active
    assert session.recorder not in regions._active


def _assert_complete(session: TraceSession, tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    again = load(write_atomic(session.trace, tmp_path / "trace.json"))
    assert again.info.status == "ok" and again.info.exit_code == 0
    assert any(span.target.endswith("ConvertFrame.__call__") for span in again.spans)
    assert again.artifacts and again.info.targets_hooked and again.info.totals_check
    assert again.info.calls_served, "the call counts contributed"


def test_a_method_called_through_the_wrapper_is_recorded_once_and_torchs_getattr_put_back():
    from torch._dynamo.eval_frame import OptimizedModule

    class Scaled(torch.nn.Linear):
        def scaled(self, x):
            return self(x) * 2

    original = vars(OptimizedModule)["__getattr__"]
    compiled = torch.compile(Scaled(2, 2), backend="aot_eager")
    session = TraceSession()
    with session:
        for _ in range(3):
            compiled.scaled(torch.ones(2))  # the original module's own method, through the wrapper
        assert compiled.in_features == 2  # an attribute, not a method: not recorded
    assert vars(OptimizedModule)["__getattr__"] is original
    (artifact,) = [a for a in session.trace.artifacts if a.name == "forwarded_method"]
    assert artifact.metadata["method"] == "scaled" and artifact.metadata["module"].endswith("Scaled")
    assert artifact.metadata["filename"] == __file__ and "compiled.scaled(" in artifact.metadata["loc"]


def test_the_wrappers_attributes_read_inside_compiled_code_break_no_graph_while_traced():
    compiled = torch.compile(torch.nn.Linear(2, 2), backend="aot_eager")

    @torch.compile(backend="aot_eager", fullgraph=True)  # a break would raise
    def step(x):
        return compiled(x) * compiled.in_features

    with TraceSession():
        assert step(torch.ones(2)).shape == (2,)


@pytest.mark.parametrize("what", ORDER)
def test_a_collector_raising_in_stop_still_leaves_a_complete_trace_and_the_others_stopped(what, tmp_path):
    session = _everything_on()
    failing = next(collector for collector in session.collectors if collector.what == what)
    stop = failing.stop

    def stop_then_raise():  # its own undoing done, then a failure: the ones after it must still be stopped
        stop()
        raise RuntimeError("boom")

    failing.stop = stop_then_raise
    with session:
        _compile_something()
        patches = list(session.hooks.patches)
    _assert_undone(session, patches)
    assert f"{what} could not be stopped cleanly: RuntimeError: boom" in session.info.warnings
    _assert_complete(session, tmp_path)


@pytest.mark.parametrize("where", ["start", "stop", "contribute"])
def test_a_part_that_fails_costs_a_warning_not_the_trace(where, tmp_path):
    session = TraceSession()
    hooks = session.collectors.index(session.hooks)
    session.collectors.insert(hooks + 1, Failing(where, RuntimeError("boom")))  # stops before the hooks
    with session:
        _compile_something()
        patches = list(session.hooks.patches)
    _assert_undone(session, patches)
    done = {"start": "started", "stop": "stopped cleanly", "contribute": "added to the trace"}[where]
    assert f"a failing part could not be {done}: RuntimeError: boom" in session.info.warnings
    _assert_complete(session, tmp_path)


def test_ctrl_c_while_stopping_still_undoes_every_patch_then_goes_on():
    session = TraceSession()
    session.collectors.append(Failing("stop", KeyboardInterrupt()))  # stopped first
    with pytest.raises(KeyboardInterrupt), session:
        _compile_something()
        patches = list(session.hooks.patches)
    _assert_undone(session, patches)
    assert session.trace.info.targets_hooked, "the trace was still completed"
    session.stop()  # a second stop does nothing


def test_ctrl_c_while_starting_undoes_what_started():
    session = TraceSession()
    hooks = session.collectors.index(session.hooks)
    session.collectors.insert(hooks + 1, Failing("start", KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        session.start()
    assert not session.hooks.patches and session.hooks._finder is None
    assert session.info.status == "interrupted", session.info.status
