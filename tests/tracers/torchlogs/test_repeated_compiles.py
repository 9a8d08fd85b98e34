"""Records torch wrote again under new compile numbers (tlparse's multi_rank_runtime) said as what they are, with
tlparse's count beside ours; a log concatenated with itself stays a copy read once."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tracers.torchlogs.convert import REPEATED
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

INPUTS = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs"
RUNTIME = INPUTS / "multi_rank_runtime"
SAID = ("ranks 0–4: compiles 0/2, 0/3 repeat the records of 0/1 (the same payloads and times under new "
        "compile numbers): read once, 2 compiles each where tlparse counts 4")


def test_compiles_repeated_under_new_numbers_are_said_with_tlparses_count() -> None:
    loaded = load_logs(RUNTIME)
    for log in loaded.logs:
        repeats = log.trace.info.from_log.get("repeats")
        if log.rank <= 4:
            assert repeats == {"0/2": ["0/1"], "0/3": ["0/1"]} and log.problems.counts[REPEATED] == 256
        else:  # ranks 5 and 6 logged each compile once
            assert repeats is None and REPEATED not in log.problems.counts
    assert SAID in loaded.notes() and "copy of the log" not in loaded.warning()


def test_a_log_concatenated_with_itself_is_read_once_with_no_new_numbers(tmp_path: Path) -> None:
    with gzip.open(INPUTS / "simple.log.gz", "rt", encoding="utf-8", newline="") as stream:
        text = stream.read()
    path = tmp_path / "twice.log"
    path.write_text(text + ("" if text.endswith("\n") else "\n") + text, encoding="utf-8")
    loaded = load_logs(path)
    [log] = loaded.logs
    assert log.problems.counts[REPEATED] > 0 and "repeats" not in log.trace.info.from_log
    assert "under new compile numbers" not in (loaded.warning() or "") and not loaded.several_runs
