"""A page at scale: the call tree draws a bounded number of rows, and a page is written as it is made, not held."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from tracers.analysis.report_model import build_report  # noqa: E402
from tracers.report import templating  # noqa: E402
from tracers.report.options import Links  # noqa: E402
from tracers.report.page import report_page, report_page_pieces  # noqa: E402
from tracers.report.save import write_page  # noqa: E402
from tracers.report.tree import MAX_TREE_ROWS, render_tree  # noqa: E402
from tracers.tracefile.events import Artifact, RunInfo, Span, Trace  # noqa: E402


def _info() -> RunInfo:
    return RunInfo(format_version=1, tool_version="0", torch_version="2.13.0", torch_git_sha="", python="3.11",
                   platform="linux", device="cpu", device_name="", cache_mode="cold", command=["x.py"],
                   started_at="", status="ok")


def _regions(count: int) -> list[Span]:
    """``count`` sibling regions of seven alternating names under one compile (as a log of many timed regions)."""
    root = Span(1, None, "dynamo_timed:dynamo", "frame", 1, "main", 0, 0, 10 * count + 10, compile_id="0/0")
    return [root] + [Span(2 + i, 1, f"dynamo_timed:region_{i % 7}", "frame", 1, "main", 1, 10 * i, 10 * i + 5,
                          compile_id="0/0") for i in range(count)]


def _rows(html: str) -> int:
    return len(re.findall(r'class="wt-node|class="wt-group', html))


def test_the_tree_draws_its_first_rows_and_counts_the_rest() -> None:
    spans = _regions(MAX_TREE_ROWS + 2_000)
    html = render_tree(spans, Links())
    assert _rows(html) == MAX_TREE_ROWS
    fold = re.search(r"Calls past the page.{1,10}s first ([\d,]+) rows.*?×(\d+)</span>", html)
    assert fold and fold.group(1) == f"{MAX_TREE_ROWS:,}"
    assert int(fold.group(2)) == len(spans) - MAX_TREE_ROWS  # every call not drawn is counted
    assert "<code>region_0</code> ×" in html  # by name, the most frequent first


def test_a_tree_within_the_rows_is_drawn_whole() -> None:
    html = render_tree(_regions(50), Links())
    assert _rows(html) == 51 and "Calls past" not in html


def test_the_page_written_in_pieces_is_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamed in small pieces (so many of them), the file holds the same bytes as the page made whole."""
    monkeypatch.setattr(templating, "STREAM_PIECE", 64)
    artifacts = [Artifact(i, "graph", f"graph_{i}", f"{i}/0", None, 1, 10 * i, {},
                          payload=f"def forward(self, x):\n    return x * {i}  # <{i}>\n") for i in range(300)]
    spans = _regions(40)
    trace = Trace(_info(), spans, artifacts)
    report = build_report(trace)
    pieces = list(report_page_pieces(report))
    assert len(pieces) > 100  # written out as it was made
    whole = report_page(report)
    assert "".join(pieces) == whole
    assert whole.count('class="wt-artifact"') == 300 and "&lt;7&gt;" in whole
    written = write_page(report, tmp_path / "t.json").read_text(encoding="utf-8")
    assert written.startswith("<!DOCTYPE html>") and written.endswith("</html>\n")
    assert written.count('class="wt-artifact"') == 300
