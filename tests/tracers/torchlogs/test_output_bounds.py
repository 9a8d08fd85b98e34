"""What a directory of logs makes grows with the logs it holds, not with the rank numbers their names claim, and a
directory of more logs than the bound is read up to it, said (issue 52, item 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python
from tracers.ranks.merge import load_merged
from tracers.torchlogs.load import load_logs
from tracers.vocabulary.reading import LOGS_ENV

pytestmark = pytest.mark.pure

SMALL = ROOT / "tests" / "data" / "tlparse" / "inputs" / "comp_metrics.log.gz"  # 2 kB, three compiles


def test_rank_131071_in_a_name_makes_a_line_not_131070(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SMALL, logs / "dedicated_log_torch_trace_rank_0_a.log.gz")
    shutil.copy(SMALL, logs / "dedicated_log_torch_trace_rank_131071_b.log.gz")
    result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr[-2000:]
    said = result.stderr.splitlines()
    assert len(said) < 80 and said.count("  ranks 1–131070: no log in the directory") == 1, said[:20]
    merged, page = tmp_path / "out" / "logs-ranks.json", tmp_path / "out" / "logs-ranks.html"
    inputs = sum(path.stat().st_size for path in logs.iterdir())
    # bounded by what the logs hold (each log's trace, its page): was 46 MB for two logs of 245 kB
    assert merged.stat().st_size < 200 * inputs and page.stat().st_size < 200 * inputs
    run = load_merged(merged)  # the missing ranks, written once, read back as every rank they stand for
    assert run.world_size == 131072 and [rank for rank, _ in run.present] == [0, 131071]
    assert len(run.ranks) == 131072 and run.ranks[5].problem == "no log in the directory"
    again = run_python(["-m", "tracers", "report", str(merged), "--out", str(tmp_path / "again")])
    assert again.returncode == 0 and again.stderr.count("ranks 1–131070: no log in the directory") == 1


def test_a_merged_file_whose_ranges_overlap_is_read_once_per_rank(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SMALL, logs / "dedicated_log_torch_trace_rank_0_a.log.gz")
    shutil.copy(SMALL, logs / "dedicated_log_torch_trace_rank_9_b.log.gz")
    assert run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path)]).returncode == 0
    merged = tmp_path / "logs-ranks.json"
    data = json.loads(merged.read_text(encoding="utf-8"))
    missing = next(entry for entry in data["ranks"] if "through" in entry)
    assert (missing["rank"], missing["through"]) == (1, 8)
    data["ranks"].append({**missing, "rank": 4, "through": 131071 * 9})  # overlapping, and past the last rank
    merged.write_text(json.dumps(data), encoding="utf-8")
    run = load_merged(merged)
    assert [slot.rank for slot in run.ranks] == list(range(10))


def test_more_logs_than_the_bound_are_read_up_to_it_and_said(tmp_path: Path, monkeypatch) -> None:
    for rank in range(5):
        shutil.copy(SMALL, tmp_path / f"dedicated_log_torch_trace_rank_{rank}_x.log.gz")
    monkeypatch.setenv(LOGS_ENV, "3")
    loaded = load_logs(tmp_path)
    assert [log.rank for log in loaded.logs] == [0, 1, 2]
    assert loaded.notes()[0] == ("the directory holds 5 logs: read the first 3 by rank (ranks 0–2), the rest left "
                                 f"unread ({LOGS_ENV}=5 reads them all)")
    monkeypatch.delenv(LOGS_ENV)
    assert len(load_logs(tmp_path).logs) == 5


def test_a_newline_in_the_directory_name_stays_in_the_summary_header(tmp_path: Path) -> None:
    logs = tmp_path / "two\nranks"
    logs.mkdir()
    for rank in range(2):
        shutil.copy(SMALL, logs / f"dedicated_log_torch_trace_rank_{rank}_x.log.gz")
    result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr[-2000:]
    [head] = [line for line in result.stderr.splitlines() if line.startswith("torch.compile across ranks")]
    assert head.startswith("torch.compile across ranks — two\\x0aranks, 2 rank(s)")
    assert not any(line.startswith("ranks, ") for line in result.stderr.splitlines())
