"""Terminal output: the one progress line (the trace command's spinner, measure's and the toolbox recorder's
runs) on a terminal and off it, and the summary's formatting."""

from __future__ import annotations

import io
import re

from tracers.terminal.style import style_for
from tracers.capture.progress import Progress
from tracers.tracefile.events import Span
from tracers.vocabulary.progress import WIPE, ProgressLine
import pytest

pytestmark = pytest.mark.pure


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _span(span_id: int, depth: int, stage: str, compile_id: str | None = "0/0") -> Span:
    return Span(id=span_id, parent=None if depth == 0 else span_id - 1, target=f"m:{stage}", stage=stage,
                thread_id=1, thread_name="MainThread", depth=depth, start_ns=0, compile_id=compile_id,
                frame="forward (mlp.py:12)")


def test_progress_draws_during_a_compile_and_clears_when_it_ends():
    terminal = FakeTerminal()
    progress = Progress(terminal, interval_s=0)
    root, lowering = _span(1, 0, "frame"), _span(2, 1, "lowering")
    progress("enter", root)
    progress("enter", lowering)
    drawn = terminal.getvalue()
    assert "compiling 0/0 forward (mlp.py:12) — Lowering to Inductor IR" in drawn
    progress("exit", lowering)
    progress("exit", root)
    assert terminal.getvalue().endswith("\r\033[2K"), "the line is wiped before the script prints again"


def test_progress_stays_silent_off_a_terminal():
    stream = io.StringIO()
    progress = Progress(stream, interval_s=0)
    progress("enter", _span(1, 0, "frame"))
    progress("enter", _span(2, 1, "lowering"))
    assert stream.getvalue() == ""


def test_a_progress_line_counts_on_a_terminal_and_closes_with_its_outcome():
    terminal = FakeTerminal()
    line = ProgressLine(terminal)
    line.start("[1/2] plain run")
    line.finish("ok (1.0 s)")
    drawn = terminal.getvalue()
    assert drawn.startswith(f"{WIPE}[1/2] plain run … 0 s"), "drawn at once, counting seconds"
    assert drawn.endswith(f"{WIPE}[1/2] plain run … ok (1.0 s)\n"), "the count is wiped for the outcome"


def test_a_progress_line_off_a_terminal_is_one_line_per_step():
    stream = io.StringIO()
    line = ProgressLine(stream)
    with line.counting("[1/2] plain run"):
        stream.write("")  # the step's work: nothing is drawn meanwhile
    assert stream.getvalue() == "[1/2] plain run …"
    line.finish("ok")
    line.draw("a spinner")
    line.clear()
    assert stream.getvalue() == "[1/2] plain run … ok\n", "no counting, no spinner, off a terminal"


def test_a_counted_step_that_raises_still_stops_counting():
    terminal = FakeTerminal()
    line = ProgressLine(terminal)
    with pytest.raises(ValueError), line.counting("[1/1] x"):
        raise ValueError
    assert line._ticker is None and terminal.getvalue().endswith(f"{WIPE}[1/1] x …")


def test_measure_counts_each_run_on_a_terminal(tmp_path, monkeypatch):
    from tracers.measure import command
    from tracers.measure.measurement import Run

    example = tmp_path / "tiny.py"
    example.write_text("def build(batch_size):\n    return None, ()\n")

    class Instant:  # each planned run fails at once, in its build: no process is started
        def __init__(self, *args: object):
            pass

        def run(self, item) -> Run:  # noqa: ANN001 - a planned run
            return Run(item.mode, item.batch_size, item.cache, error="no model", phase="build")

        def close(self) -> None:
            pass

    monkeypatch.setattr(command, "_check_torch", lambda device, backend: "2.13.0")
    monkeypatch.setattr(command, "machine_facts", lambda device: {})
    monkeypatch.setattr(command, "Runner", Instant)
    terminal = FakeTerminal()
    options = command.MeasureOptions(str(example), batch_sizes="1", out=str(tmp_path / "out"))
    assert command.run_measure(options, stream=terminal) == 1
    lines = terminal.getvalue()
    assert re.search(r"\[1/\d+\] eager · batch 1 · \w+ … 0 s", lines), lines
    assert re.search(r"\r\033\[2K\[1/\d+\] eager · batch 1 · \w+ … failed in build: no model \([^)]+\)\n", lines), lines


def test_the_toolbox_recorder_counts_each_tool_on_a_terminal(tmp_path, monkeypatch):
    from tracers.vocabulary import machine
    from walkthrough.toolbox import record_command
    from walkthrough.toolbox.runner import Setting

    monkeypatch.setattr(machine, "torch_facts", lambda: {"torch_version": "2.13.0", "torch_git_sha": "", "python": "",
                                                         "platform": "", "cuda": ""})
    monkeypatch.setattr(record_command, "warm_up", lambda setting: None)
    monkeypatch.setattr(record_command, "run_tool", lambda *args, **kwargs: None)
    recorded = record_command._record_of  # the plain run reads as not runnable: the recording stops after it
    monkeypatch.setattr(record_command, "_record_of", lambda tool, run, baseline, example, missing=None:
                        recorded(tool, None, None, example, "no python"))
    terminal = FakeTerminal()
    assert record_command.record(Setting("tiny.py"), [], tmp_path, stream=terminal) == 2
    lines = terminal.getvalue()
    assert f"{WIPE}[1/2] plain run … 0 s" in lines
    assert f"{WIPE}[1/2] plain run … missing: no python\n" in lines, lines


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    style = style_for(FakeTerminal())
    assert style.finish(style.red("x")) == "\033[31mx\033[0m"  # codes go in when the text is finished (style.py)
    assert style_for(io.StringIO()).red("x") == "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert style_for(FakeTerminal()).red("x") == "x"


def test_a_compiled_autograd_capture_is_named_as_such_not_after_the_first_frame_it_skipped():
    from tracers.analysis.trace_facts import CAPTURE_FRAME, analyze
    from tracers.vocabulary.releases import REFERENCE_TORCH
    from tracers.tracefile.chrome import load

    from tests.conftest import ROOT

    trace = load(ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "compiled_autograd-cpu-cold.json")
    capture = next(facts for facts in analyze(trace).compiles if facts.compile_id == "!0")
    assert capture.frame == CAPTURE_FRAME and capture.graphs == 1  # the captured backward graph
    offered = {span.frame for span in trace.spans if span.compile_id == "!0"}
    assert len(offered) > 10  # the frames Dynamo was offered (and skipped) under the same id
