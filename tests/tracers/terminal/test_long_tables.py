"""A log of many compiles keeps its verdict on the screen: the terminal's compile, break and recompile rows stop at a
count and say how many more the page holds (issue 54)."""

from __future__ import annotations

import re

import pytest

from benchmarks.torch_logs import compiles_log
from tests.conftest import run_python

pytestmark = pytest.mark.pure


def test_a_log_of_many_compiles_shows_the_first_rows_and_counts_the_rest(tmp_path) -> None:
    text, compiles = compiles_log(60)
    log = tmp_path / "dedicated_log_torch_trace_many.log"
    log.write_text(text, encoding="utf-8")
    result = run_python(["-m", "tracers", "report", str(log), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr
    summary = result.stderr
    table = summary.split("Compiles  (one per frame compile id", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if re.match(r"^  \d+/\d+ ", line)]
    assert compiles > 40 and len(rows) == 40, rows[:3]
    assert f"… {compiles - 40} more compiles: the page and the trace list them all" in summary
    page = (tmp_path / "out").glob("*.html")
    assert any(page), "the page is still written, with every row"
