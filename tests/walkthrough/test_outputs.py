"""Recorded example outputs: read, found per release, rendered escaped; the committed recordings say what chapter 14 says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from walkthrough.outputs import FORMAT_VERSION, OutputError, find, load, record, render

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "docs" / "_outputs"


def write(root: Path, release: str, example: str, **changes) -> Path:
    data = {"example": example, "command": f"python docs/examples/{example}.py", "torch_version": f"{release}+cpu",
            "torch_git": "a" * 40, "python": "3.11.7", "recorded_at": "2026-01-02T03:04:05Z",
            "stdout": "a <b> & c\n", "format": FORMAT_VERSION,
            "tables": {"t": {"columns": ["part", "hash"], "rows": [["x", "1"], ["<y>", "2"]], "marked": [1]}}}
    data.update(changes)
    path = root / release / f"{example}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_the_preferred_release_first_else_the_newest(tmp_path):
    old, new = write(tmp_path, "2.9.0", "ex"), write(tmp_path, "2.10.0", "ex")  # 2.10 is newer than 2.9
    assert find(tmp_path, "ex", ("2.9.0",)) == old
    assert find(tmp_path, "ex", ("2.12.0",)) == new
    assert find(tmp_path, "other", ("2.9.0",)) is None


def test_render_escapes_and_marks(tmp_path):
    recording = load(write(tmp_path, "1.0.0", "ex"))
    html = render(recording, True, ("t",), "A <caption>")
    assert "a &lt;b&gt; &amp; c" in html and "&lt;y&gt;" in html and "A &lt;caption&gt;" in html
    assert html.count('class="wt-output-marked"') == 1 and "torch 1.0.0+cpu" in html
    assert "<pre>" not in render(recording, False, (), "")


@pytest.mark.parametrize("changes", [{"format": 99}, {"stdout": None, "tables": {"t": {"rows": []}}}])
def test_a_bad_recording_is_one_line_error(tmp_path, changes):
    with pytest.raises(OutputError, match="ex.json"):
        load(write(tmp_path, "1.0.0", "ex", **changes))


def test_record_keeps_the_printed_lines_and_the_tables(tmp_path):
    example = tmp_path / "tiny.py"
    example.write_text("import json, sys\nprint('two processes')\n"
                       "json.dump({'tables': {'t': {'columns': ['a'], 'rows': [[1]]}}}, "
                       "open(sys.argv[sys.argv.index('--json') + 1], 'w'))\n")
    recording = load(record(example, tmp_path / "out"))
    assert recording.stdout == "two processes\n" and recording.tables["t"].rows == (("1",),)
    assert recording.command.startswith("python ") and recording.example == "tiny"
    failing = tmp_path / "fails.py"
    failing.write_text("raise SystemExit('no cache dir')\n")
    with pytest.raises(OutputError, match="no cache dir"):
        record(failing, tmp_path / "out")


def test_the_committed_recordings_show_what_chapter_14_says():
    """PGO: without a job id the second process compiles as much as the first, with one less; the cache-miss
    recording: the second process hits, the third misses, and the one part of the key that differs is default_dtype."""
    pgo = load(RECORDED / "2.13.0" / "pgo_two_processes.json").tables["graphs"]
    (_, first, second), (_, first_id, second_id) = pgo.rows
    assert first == second and int(second_id) < int(first_id)
    miss = load(RECORDED / "2.13.0" / "cache_miss_key.json")
    assert [row[2:] for row in miss.tables["outcomes"].rows] == [("miss", "miss"), ("hit", "hit"), ("miss", "miss")]
    key = miss.tables["key"]
    assert [key.rows[i][0] for i in key.marked] == ["default_dtype"]
    assert all(row[1] == row[2] for i, row in enumerate(key.rows) if i not in key.marked and "[…]" not in row[0])


def test_the_command_line_reports_a_failure(tmp_path, capsys):
    from walkthrough.outputs import main

    failing = tmp_path / "fails.py"
    failing.write_text("import sys; sys.exit(3)\n")
    assert main([str(failing), "--out", str(tmp_path)]) == 1
    assert "exit status 3" in capsys.readouterr().err
