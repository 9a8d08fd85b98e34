"""Terminal output: the live progress line on a terminal, and the summary's formatting."""

from __future__ import annotations

import io

from tracers.terminal.style import style_for
from tracers.capture.progress import Progress
from tracers.tracefile.events import Span
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


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert style_for(FakeTerminal()).red("x") == "\033[31mx\033[0m"
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
