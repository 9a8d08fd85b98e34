"""What reading the logs noticed is said a note a line, a fact shared by several ranks once, with those ranks."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tests.conftest import run_python
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

INPUTS = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs"

# tlparse's multi_rank_runtime: every fact of the old one-line warning, grouped by the ranks it holds for
RUNTIME_NOTES = (
    "ranks 0–3: 4 damaged payloads each (first at line 1686)",
    "rank 4: 3 damaged payloads (first at line 5400)",
    "ranks 0–3: 256 repeated records each (written again with the same time: read once; first at line 7312)",
    "rank 4: 256 repeated records (written again with the same time: read once; first at line 7213)",
    "ranks 0–4: compiles 0/2, 0/3 repeat the records of 0/1 (the same payloads and times under new compile "
    "numbers): read once, 2 compiles each where tlparse counts 4",
    "ranks 5, 6: their records say rank 1 (the ranks in their file names are used)",
    "ranks 0–6: no torch_version records (an older torch, or cut short)",
)


def test_multi_rank_runtime_says_each_fact_once_for_the_ranks_it_holds_for() -> None:
    assert load_logs(INPUTS / "multi_rank_runtime").notes() == RUNTIME_NOTES


def test_the_terminal_lists_the_notes_a_line_each(tmp_path: Path) -> None:
    result = run_python(["-m", "tracers", "report", str(INPUTS / "multi_rank_runtime"), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    start = lines.index("report: warning: how the logs were read:")
    assert tuple(line.strip() for line in lines[start + 1:start + 1 + len(RUNTIME_NOTES)]) == RUNTIME_NOTES
    assert lines[start + 1 + len(RUNTIME_NOTES)].startswith("report: read from TORCH_TRACE logs")


def test_one_log_names_itself_and_its_trace_file_keeps_the_notes() -> None:
    loaded = load_logs(INPUTS / "simple_corrupted_json.log.gz")
    assert loaded.notes() == ("simple_corrupted_json.log.gz: 1 damaged payload (at line 13)",
                              "simple_corrupted_json.log.gz: 1 missing final newline (at line 2223)",
                              # its three C++ builds ended before the compile began: no compile's time (issue 54)
                              "simple_corrupted_json.log.gz: 3 timed regions outside every compile (kept apart: not "
                              "compile time)",
                              "simple_corrupted_json.log.gz: no torch_version records (an older torch, or cut short)")
    # the trace file keeps them: its page is read later, without the terminal
    assert loaded.logs[0].trace.info.from_log["reading_notes"] == list(loaded.notes())
    messy = load_logs(INPUTS / "multi_rank_messy_input")
    assert messy.notes() == ("2 foreign files ignored (another.log, some_other_file.txt)",
                             "ranks 0, 1: 1 missing final newline each (at line 2224)",
                             "ranks 0, 1: 3 timed regions outside every compile each (kept apart: not compile time)",
                             "ranks 0, 1: no torch_version records (an older torch, or cut short)")


def test_two_runs_in_one_file_are_a_note_with_their_pid_and_start(tmp_path: Path) -> None:
    texts = []
    for name in ("simple.log.gz", "chromium_events.log.gz"):
        with gzip.open(INPUTS / name, "rt", encoding="utf-8", newline="") as stream:
            texts.append(stream.read())
    path = tmp_path / "two.log"
    path.write_text(texts[0] + ("" if texts[0].endswith("\n") else "\n") + texts[1], encoding="utf-8")
    notes = load_logs(path).notes()
    assert notes[0] == ("two.log holds 2 runs, told apart by the process that wrote them (1 of pid 1500233 from "
                        "2024-12-06T23:18:15+00:00, 2 of pid 1543231 from 2024-12-06T23:20:13+00:00): read run 2 "
                        "(the latest); --run 1 … 2 picks another")
    assert all(note.startswith("two.log: ") for note in notes[1:]) and all("\n" not in note for note in notes)
