"""Graph breaks counted from every record that shows one (break records, restarts, resume functions), each once,
the same way for a log and a live trace."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tracers.analysis.break_evidence import RECORD, RESTART, RESUME
from tracers.analysis.findings import findings, headline
from tracers.analysis.trace_facts import analyze
from tracers.ranks.summary import report
from tracers.terminal import summary
from tracers.terminal.style import Style
from tracers.tracefile.chrome import load
from tracers.torchlogs.load import load_logs
from tracers.torchlogs.merged_run import merged_run

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"
COMP_METRICS = DATA / "tlparse" / "inputs" / "comp_metrics.log.gz"
GLOO = DATA / "torch_trace-2.13.0-gloo-collectives"


def test_an_older_torchs_restarts_are_its_breaks() -> None:
    """comp_metrics.log (no break records): fn breaks at 9551, its resume function at 9553 — two restarts, two
    resume functions, two breaks, placed where the resume functions continue."""
    trace = load_logs(COMP_METRICS).logs[0].trace
    facts = analyze(trace)
    assert facts.totals().graph_breaks == 2
    assert [(b.compile_id, b.location, b.evidence) for b in facts.graph_breaks] == [
        ("0/0", "test_misc.py:9551", RESTART), ("1/0", "test_misc.py:9553", RESTART)]
    assert facts.graph_breaks[0].reason.startswith("skip function graph_break in file")
    assert "Graph breaks 2" in summary.render(trace, facts, Style(False))


def test_resume_functions_alone_still_show_the_breaks() -> None:
    """The same log with the restarts gone: each resume function's place is a break of the compile before it."""
    trace = load_logs(COMP_METRICS).logs[0].trace
    cut = ("restart_reasons", "dynamo_time_before_restart_s")
    trace.artifacts[:] = [dataclasses.replace(a, metadata={k: v for k, v in a.metadata.items() if k not in cut})
                          for a in trace.artifacts]
    facts = analyze(trace)
    assert [(b.compile_id, b.location, b.evidence) for b in facts.graph_breaks] == [
        ("0/0", "test_misc.py:9551", RESUME), ("1/0", "test_misc.py:9553", RESUME)]
    assert facts.totals().graph_breaks == 2
    # no finding explains them (no record gives a reason), and the headline does not say there are none
    said = headline(findings(trace, facts), facts)
    assert said == ("No findings: 3 graphs, 2 graph breaks whose reason no record gives, no recompiles, "
                    "nothing ran eager.")


def test_a_break_shown_three_ways_counts_once_on_a_fresh_run() -> None:
    """torch 2.13 logs the break record, the restart and the resume function of one break: counted once per rank,
    in the per-rank table too."""
    loaded = load_logs(GLOO)
    for log in loaded.logs:
        facts = analyze(log.trace)
        assert any(c.restarts for c in facts.compiles) and any("resume_in_step" in (c.frame or "") for c in facts.compiles)
        assert [(b.compile_id, b.evidence) for b in facts.graph_breaks] == [("0/0", RECORD)]
    assert [row.graph_breaks for row in report(merged_run(loaded, "gloo")).rows] == [1, 1]


def test_a_live_trace_and_its_log_count_the_same_breaks() -> None:
    """graph_breaks.py traced live and read from its TORCH_TRACE log (torch 2.11): the same breaks, all from records."""
    live = analyze(load(DATA / "torch-2.11.0" / "graph_breaks-aot_eager-live.json"))
    logged = analyze(load_logs(DATA / "torch-2.11.0" / "graph_breaks-aot_eager.log.gz").logs[0].trace)
    assert live.totals().graph_breaks == logged.totals().graph_breaks > 0
    assert {b.evidence for b in live.graph_breaks} == {b.evidence for b in logged.graph_breaks} == {RECORD}


def test_a_resume_function_of_a_frame_never_compiled_alone_adds_no_break() -> None:
    """A nested break (torch's nested_graph_breaks) resumes the inner function too: its break is the outer compile's
    record, so the inner resume function counts nothing more."""
    from types import SimpleNamespace

    from tracers.analysis.break_evidence import unrecorded

    compiles = [SimpleNamespace(compile_id="0/0", frame="f (m.py:1)", restarts=()),
                SimpleNamespace(compile_id="1/0", frame="torch_dynamo_resume_in_g_at_7 (m.py:7)", restarts=()),
                SimpleNamespace(compile_id="2/0", frame="torch_dynamo_resume_in_f_at_3 (m.py:3)", restarts=())]
    assert unrecorded(compiles, {"0/0": 1}, {"0/0"}) == []
    # without the record, f's resume function shows f's break; g's still adds none
    assert unrecorded(compiles, {}, set()) == [["0/0", "m.py:3", "Dynamo resumed `f` after line 3 in a resume function",
                                                RESUME]]
