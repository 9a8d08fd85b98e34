"""The ranks page folds how the logs were read (a note a line, escaped) and gives every difference its reason."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tracers.commands import main
from tracers.ranks.merge import RANKS_KEY
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

RUNTIME = ROOT / "tests" / "data" / "tlparse" / "inputs" / "multi_rank_runtime"
NOTES = re.compile(r'<details class="wt-reading-notes"><summary>How the logs were read \((\d+) notes\)</summary>'
                   r"<ul>(.*?)</ul></details>")


def _report(logs: Path, out: Path) -> tuple[str, Path]:
    assert main(["report", str(logs), "--out", str(out)]) == 0
    merged = next(out.glob("*-ranks.json"))
    return merged.with_suffix(".html").read_text(encoding="utf-8"), merged


def test_the_notes_are_folded_once_for_all_ranks_and_kept_in_the_merge(tmp_path: Path) -> None:
    logs = tmp_path / "job <b>&x"
    shutil.copytree(RUNTIME, logs)
    (logs / "<i>notes.txt").write_text("not a log", encoding="utf-8")  # a foreign file named with markup
    page, merged = _report(logs, tmp_path / "out")
    [(count, items)] = NOTES.findall(page)
    notes = re.findall(r"<li>(.*?)</li>", items)
    expected = load_logs(logs).notes()
    assert int(count) == len(notes) == len(expected) and notes == [html.escape(note) for note in expected]
    assert "1 foreign file ignored (&lt;i&gt;notes.txt)" in notes and "<i>" not in page and "&amp;lt;" not in page
    assert "ranks 0–3: 4 damaged payloads each (first at line 1686)" in notes
    # the merged file keeps them (each rank's trace): its page made again says the same
    again = tmp_path / "again"
    assert main(["report", str(merged), "--out", str(again)]) == 0
    assert NOTES.findall(next(again.glob("*.html")).read_text(encoding="utf-8")) == [(count, items)]


def test_every_difference_says_why_not_only_the_first(tmp_path: Path) -> None:
    page, merged = _report(RUNTIME, tmp_path / "out")
    meta = json.loads(merged.read_text(encoding="utf-8"))["otherData"][RANKS_KEY]
    differences = meta["diagnostics"]["divergence"]
    assert len(differences) > 1
    later = re.search(r"<p>Then:</p><ul class=\"wt-reasons\">(.*?)</ul></div>", page, re.S).group(1)
    items = re.split(r"(?=<li>compile )", later)[1:]
    assert len(items) == len(differences) - 1
    for item, difference in zip(items, differences[1:]):
        assert f'<span class="wt-rank-why">{html.escape(difference["why"])}</span>' in item, item[:300]
