"""Two logs concatenated in one file are two runs, told apart by the process that wrote them, never a reset."""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.commands import report
from tracers.terminal import summary
from tracers.terminal.style import Style
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

INPUTS = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs"


def _text(name: str) -> str:
    with gzip.open(INPUTS / name, "rt", encoding="utf-8", newline="") as stream:
        return stream.read()


def _two_runs(path: Path) -> Path:
    """simple.log (pid 1500233) then chromium_events.log (pid 1543231), each compiling 0/0."""
    first = _text("simple.log.gz")
    path.write_text(first + ("" if first.endswith("\n") else "\n") + _text("chromium_events.log.gz"), encoding="utf-8")
    return path


def test_two_logs_in_one_file_are_two_runs_not_a_reset(tmp_path: Path) -> None:
    path = _two_runs(tmp_path / "two.log")
    loaded = load_logs(path)
    [log] = loaded.logs
    assert not loaded.ranked and log.trace.info.resets == 0
    assert log.trace.info.from_log["run_in_file"].startswith("two.log holds 2 runs")  # the trace file says it too
    said = loaded.warning()
    assert ("two.log holds 2 runs, told apart by the process that wrote them (1 of pid 1500233 from "
            "2024-12-06T23:18:15+00:00, 2 of pid 1543231 from 2024-12-06T23:20:13+00:00): read run 2 (the latest)") in said
    # the latest is chromium_events.log as it reads alone: its compile 0/0 failed, no reset, no ``r1:`` ids
    alone = load_logs(INPUTS / "chromium_events.log.gz").logs[0].trace
    facts = analyze(log.trace)
    assert [c.compile_id for c in facts.compiles] == [c.compile_id for c in analyze(alone).compiles] == ["0/0"]
    assert "reset" not in summary.render(log.trace, facts, Style(False))
    earlier = load_logs(path, run=1)
    assert earlier.logs[0].trace.info.status == "ok" and "read run 1 (run 1, as --run asked)" in earlier.warning()
    assert len(analyze(earlier.logs[0].trace).compiles) == len(analyze(load_logs(INPUTS / "simple.log.gz").logs[0].trace).compiles)


def test_a_program_that_resets_dynamo_is_one_run(tmp_path: Path) -> None:
    """cache_hit_miss.log: one process numbering its compiles from 0/0 again after each reset."""
    loaded = load_logs(INPUTS / "cache_hit_miss.log.gz")
    assert loaded.logs[0].trace.info.resets == 2 and not loaded.several_runs


def test_another_thread_compiling_its_own_frame_is_the_same_run(tmp_path: Path) -> None:
    """An older torch writes the thread's id on each record: comp_metrics.log with its resume functions' records
    written by another thread is still one run of 3 compiles."""
    text = _text("comp_metrics.log.gz")
    lines = text.split("\n")
    thread = re.compile(r"^(V\d{4} [\d:.]+ )(\d+) ")
    first_resume = next(i for i, line in enumerate(lines) if '"frame_id": 1' in line)
    rewritten = [thread.sub(r"\g<1>4242 ", line) if i >= first_resume else line for i, line in enumerate(lines)]
    path = tmp_path / "threads.log"
    path.write_text("\n".join(rewritten), encoding="utf-8")
    loaded = load_logs(path)
    assert not loaded.several_runs and len(analyze(loaded.logs[0].trace).compiles) == 3


def test_a_rank_log_holding_two_runs_is_read_as_its_latest(tmp_path: Path) -> None:
    _two_runs(tmp_path / "dedicated_log_torch_trace_rank_0.log")
    loaded = load_logs(tmp_path)
    assert [log.rank for log in loaded.logs] == [0] and "holds 2 runs" in loaded.warning()


def test_report_help_says_run_picks_a_run_inside_a_file_too() -> None:
    wide = lambda prog: argparse.HelpFormatter(prog, width=400)  # noqa: E731 - each option's help on one line
    parser = argparse.ArgumentParser(prog="report", formatter_class=wide)
    report.add_arguments(parser)
    [line] = [line for line in parser.format_help().splitlines() if line.strip().startswith("--run N")]
    assert "in a log file holding several" in line and "its N-th run" in line  # a file's runs, not only a directory's
    assert "each rank's N-th log" in line and "1 the earliest (default: the latest)" in line
