"""The other ranks' idle time while some ranks compile alone: measured on the shared clock, never guessed."""

from __future__ import annotations

import pytest

from tracers.ranks.clock import Alignment
from tracers.ranks.merge import MergedRun, RankTrace
from tracers.ranks.waits import idle_while_compiling
from tracers.tracefile.events import RunInfo, Span, Trace

pytestmark = pytest.mark.pure

MS = 1_000_000


def _trace(*compiles: tuple[str, int, int]) -> Trace:
    """A rank's trace with one outermost compile span per (compile id, start ms, end ms), each with a child span."""
    spans = []
    for compile_id, start, end in compiles:
        parent = len(spans)
        spans.append(Span(parent, None, "convert_frame:_compile", "frame", 1, "main", 0, start * MS, end * MS, compile_id))
        spans.append(Span(parent + 1, parent, "aot:inner", "aot", 1, "main", 1, start * MS, end * MS, compile_id))
    info = RunInfo(1, "t", "2.13.0", "", "3.11", "linux", "cpu", "", "cold", [], "now", status="ok")
    return Trace(info, spans, [])


def _run(traces: dict[int, Trace], offsets: dict[int, int] | None = None, disagreement: str | None = None):
    ranks = tuple(RankTrace(rank, trace, f"r{rank}.json") for rank, trace in traces.items())
    return MergedRun("job", "cpu", "cold", len(ranks), ranks,
                     Alignment(offsets or {rank: 0 for rank in traces}, "one host", disagreement))


def test_a_rank_that_compiled_nothing_meanwhile_is_idle_for_the_whole_compile() -> None:
    run = _run({0: _trace(("0/0", 0, 100)), 1: _trace(("0/0", 0, 100), ("0/1", 500, 1300))})
    assert idle_while_compiling(run, {1: ("0/1",)}) == {0: pytest.approx(0.8)}


def test_time_a_rank_spent_compiling_itself_is_not_idle() -> None:
    # Rank 0 compiled 0/2 from 900 to 1100 ms, inside rank 1's 0/1: 200 ms of the 800 were its own work.
    run = _run({0: _trace(("0/0", 0, 100), ("0/2", 900, 1100)), 1: _trace(("0/1", 500, 1300))})
    assert idle_while_compiling(run, {1: ("0/1",)}) == {0: pytest.approx(0.6)}


def test_the_shared_clock_places_each_rank() -> None:
    # Rank 0's clock runs 400 ms behind: its compile at 600 ms is at 1000 ms on the shared axis, inside rank 1's.
    run = _run({0: _trace(("0/2", 600, 700)), 1: _trace(("0/1", 500, 1300))}, offsets={0: 400 * MS, 1: 0})
    assert idle_while_compiling(run, {1: ("0/1",)}) == {0: pytest.approx(0.7)}


def test_nothing_is_said_where_the_clocks_could_not_be_aligned() -> None:
    run = _run({0: _trace(("0/0", 0, 100)), 1: _trace(("0/1", 500, 1300))}, disagreement="hosts 89 years apart")
    assert idle_while_compiling(run, {1: ("0/1",)}) == {}


@pytest.mark.torch
def test_under_ddp_the_rank_without_the_recompile_is_said_to_wait(tmp_path) -> None:
    """Rank 1 alone gets a shorter last batch: its recompile is one finding on rank 1, with rank 0's idle time; the
    input is named by the user's expression (the call passes it through DDP's forward unchanged)."""
    from tests.conftest import SCRIPTS, run_python

    result = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(tmp_path),
                         str(SCRIPTS / "rank_last_batch.py")])
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stderr.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Findings"))
    recompile = next(index for index in range(start, len(lines)) if "recompiled 1 time" in lines[index])
    assert "the size of `torch.randn(size, 16)` changed" in lines[recompile]
    assert lines[recompile + 1].strip().startswith("on rank 1 ")
    assert lines[recompile + 2].strip().startswith("rank 0 compiled nothing during ")
    assert "went on to the next collective and waited there for rank 1" in lines[recompile + 2]
    page = next(tmp_path.glob("*-ranks.html")).read_text(encoding="utf-8")
    assert "rank 0 compiled nothing during " in page
