"""``report --run N`` past the runs a log or a directory holds: one line saying how many it holds, exit 2, never a
traceback; a hint never offers a run that is not there (issue 52, item 6)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_python
from tracers.torchlogs.load import LogError, load_logs

pytestmark = pytest.mark.pure

INPUTS = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs"
RANK_0 = INPUTS / "multi_rank_schedule" / "dedicated_log_torch_trace_rank_0_6u3fubwl.log.gz"
RANK_1 = INPUTS / "multi_rank_schedule" / "dedicated_log_torch_trace_rank_1_n8zycf07.log.gz"


def _text(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as stream:
        return stream.read()


def _two_runs(path: Path) -> Path:
    """Two logs of two processes concatenated: one file holding two runs."""
    first = _text(INPUTS / "simple.log.gz")
    path.write_text(first + ("" if first.endswith("\n") else "\n") + _text(INPUTS / "chromium_events.log.gz"),
                    encoding="utf-8")
    return path


def _report(path: Path, run: int, out: Path):  # noqa: ANN202 - subprocess.CompletedProcess
    return run_python(["-m", "tracers", "report", str(path), "--run", str(run), "--out", str(out)])


@pytest.mark.parametrize("name", ["dedicated_log_torch_trace_rank_0_x.log.gz", "dedicated_log_torch_trace_x.log.gz"],
                         ids=["rank-named", "plain"])
def test_run_2_of_a_log_of_one_run_is_one_line_and_exit_2(tmp_path: Path, name: str) -> None:
    log = tmp_path / name
    shutil.copy(RANK_0, log)
    result = _report(log, 2, tmp_path / "out")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines() == [
        f"report: {log}: --run 2 asks for a run it does not hold; it holds 1 run: leave --run out"]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_run_past_a_files_runs_says_how_many_it_holds(tmp_path: Path) -> None:
    log = _two_runs(tmp_path / "dedicated_log_torch_trace_two.log")
    result = _report(log, 3, tmp_path / "out")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1] == (
        f"report: {log}: --run 3 asks for a run it does not hold; it holds 2 runs: --run 1 … 2 picks one")


def test_a_rank_log_holding_two_runs_gives_either_by_run(tmp_path: Path) -> None:
    """The file's run is picked once: the rank's single log is not then asked for a second log of its own."""
    _two_runs(tmp_path / "dedicated_log_torch_trace_rank_0.log")
    pids = [(load_logs(tmp_path, run=run).logs[0].trace.info.from_log or {}).get("pid") for run in (1, 2)]
    assert pids == [1500233, 1543231]


def test_a_directory_reads_the_ranks_that_have_the_run_and_hints_only_runs_there_are(tmp_path: Path) -> None:
    shutil.copy(RANK_0, tmp_path / "dedicated_log_torch_trace_rank_0_a.log.gz")
    shutil.copy(INPUTS / "simple.log.gz", tmp_path / "dedicated_log_torch_trace_rank_0_b.log.gz")
    shutil.copy(RANK_1, tmp_path / "dedicated_log_torch_trace_rank_1_a.log.gz")
    loaded = load_logs(tmp_path, run=2)
    assert [log.rank for log in loaded.logs] == [0]
    said = loaded.warning()
    assert "rank 1 has 1 log, it has no run 2: none read" in said and "--run 1 … 2 picks another" in said, said
    with pytest.raises(LogError, match=r"--run 3 asks for a run it does not hold; it holds at most 2 runs: "
                                       r"--run 1 … 2 picks one"):
        load_logs(tmp_path, run=3)
