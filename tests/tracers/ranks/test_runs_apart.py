"""Ranks whose runs do not overlap in time (logs of several runs in one folder) are said so, and no waits are
compared between them; a wait is said only where the ranks show a collective to wait at (issue 54, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tracers.ranks.rank_logs import compile_log
from tests.tracers.ranks.test_waits import _run, _trace
from tracers.analysis.finding_type import Finding
from tracers.ranks.findings import _others_wait
from tracers.ranks.waits import idle_while_compiling
from tracers.torchlogs.load import load_logs
from tracers.torchlogs.merged_run import merged_run

pytestmark = pytest.mark.pure

DAY_US = 86_400e6


def _folder(tmp_path: Path, starts_us: dict[int, float]) -> Path:
    for rank, start in starts_us.items():
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab12.log").write_text(compile_log(rank, start),
                                                                                 encoding="utf-8")
    return tmp_path


def test_rank_logs_weeks_apart_are_said_not_to_overlap_and_compare_no_waits(tmp_path: Path) -> None:
    run = merged_run(load_logs(_folder(tmp_path, {0: 1.7e15, 1: 1.7e15 + 30 * DAY_US, 2: 1.7e15 + 5})), "job")
    said = run.alignment.disagreement
    assert said.startswith("the ranks' runs do not overlap in time: ranks 0, 2, then rank 1, 30 days later")
    assert "no waits between them are compared" in said and "in order, not in time" in run.alignment.method
    assert idle_while_compiling(run, {1: ("0/0",)}) == {}
    # each group placed by its start: the timeline is milliseconds wide, not a month
    placed = [run.alignment.offsets_ns[rank] + trace.spans[0].start_ns for rank, trace in run.present]
    assert max(placed) - min(placed) < 10**6


def test_rank_logs_of_one_run_keep_torch_s_clock(tmp_path: Path) -> None:
    run = merged_run(load_logs(_folder(tmp_path, {0: 1.7e15, 1: 1.7e15 + 3e6})), "job")
    assert run.alignment.disagreement is None and set(run.alignment.offsets_ns.values()) == {0}


def _recompile_on_rank_1() -> list:
    return [(1, Finding("recompile", "`f` recompiled 1 time", 1, ("0/1",), 0.8))]


def test_no_wait_is_said_for_ranks_with_no_collective_at_all() -> None:
    run = _run({0: _trace(("0/0", 0, 100)), 1: _trace(("0/0", 0, 100), ("0/1", 500, 1300))})
    assert idle_while_compiling(run, {1: ("0/1",)})  # rank 0 was idle: but nothing shows it waited anywhere
    assert _others_wait(run, _recompile_on_rank_1()) is None


def test_a_wait_is_said_where_the_ranks_made_a_process_group() -> None:
    run = _run({0: _trace(("0/0", 0, 100)), 1: _trace(("0/0", 0, 100), ("0/1", 500, 1300))})
    for _, trace in run.present:
        trace.info.rank = {"rank": 0, "backend": "gloo"}
    said = _others_wait(run, _recompile_on_rank_1())
    assert said == ("rank 0 compiled nothing during 800 ms of it: it went on to the next collective and waited there "
                    "for rank 1 (up to that long)")
