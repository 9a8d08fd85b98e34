"""Ranks that compile other functions under one compile id: the cross-rank table and the divergence name each rank's
own frame (tlparse's multi_rank_logs: 0/0 is `fn` on ranks 0 and 2, `kernel` on ranks 1 and 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.ranks.findings import compile_lines
from tracers.ranks.page import render_ranks
from tracers.ranks.summary import render, report
from tracers.terminal.style import Style
from tracers.torchlogs.load import load_logs
from tracers.torchlogs.merged_run import merged_run

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"
MULTI = DATA / "tlparse" / "inputs" / "multi_rank_logs"
GLOO = DATA / "torch_trace-2.13.0-gloo-collectives"


def _result(path: Path):
    return report(merged_run(load_logs(path), path.name))


def test_the_table_names_each_ranks_own_frame_where_they_differ() -> None:
    result = _result(MULTI)
    lines = compile_lines(result.run, Style(False), result.facts)
    [row] = [line for line in lines if line.strip().startswith("0/0 ")]
    assert "frames differ by rank" in row
    # ranks 0 and 2's backend raised on fn's graph (BackendCompilerFailed): no graph, as torch counts (issue 54 item 6)
    assert "rank 0: fn 0g" in row and "rank 1: kernel 1g" in row and "rank 2: fn 0g" in row and "rank 3: kernel 1g" in row
    [later] = [line for line in lines if line.strip().startswith("0/1 ")]
    assert "kernel" in later and "frames differ" not in later  # only ranks 1 and 3 compiled it: one frame


def test_the_divergence_says_the_frames_differ_and_compares_nothing_else_there() -> None:
    result = _result(MULTI)
    first = result.divergence.first
    assert (first.compile_id, first.aspect) == ("0/0", "compiled frame")
    assert first.said == "compile 0/0 is `fn` on ranks 0, 2 and `kernel` on ranks 1, 3"
    assert first.line is None and first.detail[0].startswith("ranks 0, 2: `fn` from test_misc.py:")
    assert first.detail[1].startswith("ranks 1, 3: `kernel` from gen_many_frames.py:")
    # fn's inputs against kernel's are no difference worth saying
    assert not any(d.aspect == "input tensor metadata" and d.compile_id == "0/0" for d in result.divergence.differences)
    assert first.said in render(result, Style(False)) and "`kernel` on ranks 1, 3" in render_ranks(result)


def test_ranks_that_compile_one_frame_say_it_once() -> None:
    result = _result(GLOO)
    lines = compile_lines(result.run, Style(False), result.facts)
    assert any(line.split()[:2] == ["0/0", "step"] for line in lines)
    assert not any(d.aspect == "compiled frame" for d in result.divergence.differences)


def test_a_function_run_by_multiprocessing_is_not_located_at_its_process_py(tmp_path: Path) -> None:
    """Each rank's worker compiled as it is called from multiprocessing's ``process.py`` (mp.spawn): the standard
    library's frame is no user's line; the divergence is said at the compiled function (issue 54, item 2)."""
    from tests.tracers.ranks.rank_logs import SPAWNED, compile_log

    for rank in (0, 1):
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab.log").write_text(
            compile_log(rank, guards=(f"EQUALS_MATCH: L['n'] == {rank + 2}",), callers=SPAWNED), encoding="utf-8")
    result = _result(tmp_path)
    first = result.divergence.first
    assert first.aspect == "guards" and first.said == "`n` is 2 on rank 0 and 3 on rank 1"
    assert first.line == "f (prog.py:1)", first.line
    page = render_ranks(result)
    diverge = page[page.index('class="wt-rank-diverge"'):]
    said = render(result, Style(False)).split("Findings")[0] + diverge[:diverge.index("</div>")]
    assert "at f (prog.py:1)" in said and "<code>f (prog.py:1)</code>" in said
    assert "process.py" not in said and "_bootstrap" not in said and "self._target" not in said


def test_the_users_line_beyond_the_standard_librarys_frames_is_the_one_said(tmp_path: Path) -> None:
    """The user's loop calls a pool's worker through process.py: the innermost line of the user's is said."""
    from tests.tracers.ranks.rank_logs import SPAWNED, compile_log

    callers = (("/srv/app/train.py", 40, "main", "run(step)"), *SPAWNED)
    for rank in (0, 1):
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab.log").write_text(
            compile_log(rank, guards=(f"EQUALS_MATCH: L['n'] == {rank + 2}",), callers=callers), encoding="utf-8")
    assert _result(tmp_path).divergence.first.line == "train.py:40  run(step)"
