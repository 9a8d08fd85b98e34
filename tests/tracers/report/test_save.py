"""Saving a trace again over itself (``--vs-eager``'s eager timings added after the run): the recording process's
id kept, the page beside it, and a trace that cannot be written again said in one note, not lost."""

from __future__ import annotations

import json
import shutil

from tracers.analysis.report_model import build_report
from tracers.report.save import save_over
from tracers.tracefile.chrome import load
from tracers.vocabulary.releases import REFERENCE_TORCH

from tests.conftest import ROOT

RECORDED = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "late_hook-cpu-cold.json"


def test_saved_again_as_the_process_that_recorded_it_with_its_page(tmp_path):
    path = tmp_path / RECORDED.name
    shutil.copyfile(RECORDED, path)
    trace = load(path)
    trace.info.warnings.append("added after the run")
    page, notes = save_over(trace, build_report(trace), path, None, False, pid=4321)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {event["pid"] for event in data["traceEvents"]} == {4321}
    assert "added after the run" in load(path).info.warnings
    assert notes == () and page == path.with_suffix(".html") and page.stat().st_size > 0


def test_a_trace_that_cannot_be_written_again_is_said_and_the_page_still_comes(tmp_path):
    path = tmp_path / RECORDED.name
    path.mkdir()  # a folder where the trace was: the rename over it fails
    trace = load(RECORDED)
    page, notes = save_over(trace, build_report(trace), path, None, False, pid=1)
    assert len(notes) == 1 and notes[0].startswith(f"cannot write {path} again: ")
    assert notes[0].endswith("; it stays as first saved") and notes[0] in trace.info.warnings
    assert page is not None and page.exists()


def test_without_a_report_only_the_trace_is_written(tmp_path):
    path = tmp_path / RECORDED.name
    page, notes = save_over(load(RECORDED), None, path, None, False, pid=7)
    assert (page, notes) == (None, ()) and path.exists() and not path.with_suffix(".html").exists()
