"""A trace read from a TORCH_TRACE log shows how the log was read, folded and escaped, also when reopened later."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tracers.analysis.report_model import build_report
from tracers.commands import main
from tracers.report.fragment import report_header
from tracers.tracefile.events import RunInfo, Trace

pytestmark = pytest.mark.pure

INPUTS = ROOT / "tests" / "data" / "tlparse" / "inputs"
NOTES = re.compile(r'<details class="wt-reading-notes"><summary>How the logs were read \((\d+) notes?\)</summary>'
                   r"<ul>(.*?)</ul></details>")


def _trace(**info: object) -> Trace:
    return Trace(RunInfo(1, "0", "2.13.0", "", "3.11", "linux", "cpu", "", "cold", [], "", **info), [], [])


def _notes(page: str) -> list[str]:
    [(count, items)] = NOTES.findall(page)
    found = re.findall(r"<li>(.*?)</li>", items)
    assert len(found) == int(count)
    return found


def test_the_page_folds_the_notes_escaped_and_keeps_them_when_the_trace_is_reopened(tmp_path: Path) -> None:
    log = tmp_path / "dedicated_log_torch_trace_<b>&x.log.gz"  # markup in the name every note starts with
    shutil.copyfile(INPUTS / "simple_corrupted_json.log.gz", log)
    assert main(["report", str(log), "--out", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "dedicated_log_torch_trace_<b>&x.html").read_text(encoding="utf-8")
    name = "dedicated_log_torch_trace_&lt;b&gt;&amp;x.log.gz"
    assert _notes(page) == [f"{name}: 1 damaged payload (at line 13)",
                            f"{name}: 1 missing final newline (at line 2223)",
                            f"{name}: 3 timed regions outside every compile (kept apart: not compile time)",
                            f"{name}: no torch_version records (an older torch, or cut short)"]
    assert "<b>&x" not in page and "&amp;lt;" not in page
    # the trace file carries them: its page, made again from the JSON alone, says the same
    again = tmp_path / "again"
    assert main(["report", str(tmp_path / "out" / "dedicated_log_torch_trace_<b>&x.json"), "--out", str(again)]) == 0
    assert _notes(next(again.glob("*.html")).read_text(encoding="utf-8")) == _notes(page)


def test_a_trace_read_before_the_notes_were_written_shows_its_counts() -> None:
    header = report_header(build_report(_trace(from_log={
        "file": "old.log", "written_by": "torch 2.11.0", "cannot_give": [], "problems": {"damaged payload": 2},
        "missing_record_kinds": ["torch_version"]})))
    assert _notes(header) == ["2 × damaged payload", "no torch_version records (an older torch, or cut short)"]


def test_a_trace_recorded_live_has_no_such_section() -> None:
    header = report_header(build_report(_trace()))
    assert "wt-reading-notes" not in header and "How the logs were read" not in header
