"""The site's data without Sphinx: the pipeline map's boxes, and each page's banner from the lock and verify reports."""

from __future__ import annotations

from collections import Counter

import pytest

from tracers.tracefile.stages import STAGES
from walkthrough.banner import ReleaseStatus, ReportFormatError, page_entries, page_status, read_report, read_reports
from walkthrough.lock import ExcerptEntry, FactEntry, Lock, SymbolEntry
from walkthrough.pipeline import pipeline_boxes
from walkthrough.report import markdown
from walkthrough.verify import Finding, Place, Report

pytestmark = pytest.mark.pure


def test_pipeline_boxes_follow_the_stages_table_and_link_only_written_chapters():
    first, second = STAGES[0].chapter, STAGES[1].chapter
    boxes = pipeline_boxes({first, "index"})
    assert [box.stage_id for box in boxes] == [stage.id for stage in STAGES]
    assert [box.number for box in boxes] == list(range(1, len(STAGES) + 1))
    assert boxes[0].linked and boxes[0].chapter == first
    assert not any(box.linked for box in boxes if box.chapter != first)
    assert second != first and not boxes[1].linked
    assert boxes[0].entry_points == tuple(target.short for target in STAGES[0].targets)


def _symbol(name: str, chapters: tuple[str, ...], uses: tuple[str, ...]) -> SymbolEntry:
    return SymbolEntry(name, "torch/x.py", 1, 2, "function", "h", "r", chapters=chapters, uses=uses)


LOCK = Lock(
    "2.13.0+cpu", "c" * 40,
    symbols=(
        _symbol("torch.a:hooked", ("chapters/01-entry",), ("hook",)),
        _symbol("torch.a:linked|odd", ("chapters/01-entry", "index"), ("link",)),
        _symbol("torch.a:excerpted", ("chapters/01-entry",), ("excerpt",)),
        _symbol("torch.b:elsewhere", ("chapters/09-inductor",), ("hook",)),
    ),
    excerpts=(ExcerptEntry("chapters/01-entry", "torch.a:excerpted", "torch.a:excerpted", "torch/x.py", 1, 2, "h", "r"),),
    facts=(FactEntry("chapters/01-entry", "torch.a.limit == 8", "torch/x.py", 3, "8"),),
)


def test_page_entries_are_its_excerpts_facts_links_and_hooks_but_not_bare_excerpt_targets():
    assert set(page_entries(LOCK, "chapters/01-entry")) == {
        ("excerpt", "chapters/01-entry: torch.a:excerpted"),
        ("fact", "torch.a.limit == 8"),
        ("symbol", "torch.a:hooked"),
        ("symbol", "torch.a:linked|odd"),
    }
    assert page_entries(LOCK, "index") == (("symbol", "torch.a:linked|odd"),)
    assert page_entries(LOCK, "verify/SUMMARY") == ()
    assert page_status(LOCK, "verify/SUMMARY", (), "2.13.0+cpu", "c" * 40) is None


def _finding(kind: str, name: str, status: str, uses: tuple[str, ...] = ()) -> Finding:
    return Finding(kind, name, ("chapters/01-entry",), status, Place("torch/x.py", 1, 2), Place("torch/x.py", 5, 6),
                   uses=uses)


def _report_file(tmp_path, release: str, findings: list[Finding]):
    report = Report("2.13.0+cpu", "c" * 40, f"{release}+cpu", "d" * 40, "wheel", tuple(findings), 0.1)
    path = tmp_path / f"{release}.md"
    path.write_text(markdown(report, diff_text=False), encoding="utf-8")
    return path


def test_banner_status_reads_the_markdown_that_verify_writes(tmp_path):
    """The format contract with walkthrough/report.py: a real report, written by it, read back."""
    _report_file(tmp_path, "2.15.0", [
        _finding("symbol", "torch.a:hooked", "CHANGED", ("hook",)),
        _finding("symbol", "torch.a:linked|odd", "MOVED", ("link",)),  # a '|' is escaped in the table
        _finding("excerpt", "chapters/01-entry: torch.a:excerpted", "MISSING"),
        _finding("fact", "torch.a.limit == 8", "SAME"),
    ])
    _report_file(tmp_path, "2.9.0", [_finding("symbol", "torch.a:hooked", "SAME", ("hook",))])
    _report_file(tmp_path, "2.10.0", [_finding("fact", "torch.a.limit == 8", "UNCHECKED")])
    (tmp_path / "SUMMARY.md").write_text("# Summary\n", encoding="utf-8")
    reports = read_reports(tmp_path)
    assert [r.release for r in reports] == ["2.9.0", "2.10.0", "2.15.0"]  # by release, not by text
    assert reports[2].torch_version == "2.15.0+cpu"
    assert reports[2].statuses[("symbol", "torch.a:linked|odd")] == "MOVED"

    status = page_status(LOCK, "chapters/01-entry", reports, "2.13.0+cpu", "c" * 40)
    assert status.entries == 4
    old, unchecked, new = status.releases
    assert new.drifted == Counter({"CHANGED": 1, "MISSING": 1}) and new.unchecked == 0
    assert new.text == "2 of 4 drifted (1 CHANGED, 1 MISSING)"
    assert old.text == "1 hold, 3 not checked yet"  # entries added after that report was recorded
    assert unchecked.text == "not checked yet"
    assert (new.state, old.state, unchecked.state) == ("drift", "holds", "unchecked")
    assert page_status(LOCK, "index", reports, "2.13.0+cpu", "c" * 40).releases[2].text == "holds"
    assert new.short == "1 changed, 1 gone" and old.short == old.text  # the banner's words: news, not an alarm
    whole = page_status(LOCK, "index", reports, "2.13.0+cpu", "c" * 40, whole_site=True)
    assert whole.entries == 6  # the front page counts every locked entry of the site: 4 symbols, an excerpt, a fact
    assert whole.releases[2].drifted == Counter({"CHANGED": 1, "MISSING": 1})


def test_release_status_text():
    assert ReleaseStatus("2.15.0", 3, Counter(), 0).text == "all 3 hold"
    assert ReleaseStatus("2.15.0", 3, Counter({"CHANGED": 1}), 1).text == "1 of 3 drifted (1 CHANGED), 1 not checked yet"


def test_a_file_that_is_not_a_report_is_an_error(tmp_path):
    path = tmp_path / "2.15.0.md"
    path.write_text("# Notes\n", encoding="utf-8")
    with pytest.raises(ReportFormatError):
        read_reports(tmp_path)
    assert read_reports(tmp_path / "nowhere") == ()
    assert read_report(_report_file(tmp_path, "2.14.1", [])).statuses == {}
