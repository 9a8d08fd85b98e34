"""Eight gloo ranks, one of which (rank 5) feeds a shorter batch: the divergence is said in one line naming rank 5
with the other seven grouped, at the user's line; the per-rank table groups the ranks that agree and fits the page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tracers.ranks.wording import ranks_text

from tests.conftest import SCRIPTS, run_python

pytestmark = pytest.mark.torch

SAID = "rank 5 compiled 0/1 (1 compile), which ranks 0–4, 6, 7 did not"
SEVEN = "ranks 0–4, 6, 7"


def test_ranks_are_said_as_runs_and_the_rest() -> None:
    assert ranks_text([1]) == "rank 1"
    assert ranks_text([0, 1]) == "ranks 0, 1"
    assert ranks_text([0, 1, 2, 3]) == "ranks 0–3"
    assert ranks_text([7, 6, 4, 3, 2, 1, 0]) == SEVEN
    assert ranks_text([0, 1, 3, 4, 5, 7]) == "ranks 0, 1, 3–5, 7"


@pytest.fixture(scope="module")
def eight(tmp_path_factory) -> tuple[str, Path]:
    """One 8-rank run (about 30 s on two cores); its summary and the merged page."""
    out = tmp_path_factory.mktemp("eight")
    result = run_python(["-m", "tracers", "trace", "--nproc", "8", "--out", str(out),
                         str(SCRIPTS / "rank_batch8.py")], timeout=900)  # a hang guard only
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(list(out.glob("rank_batch8-*-rank[0-7].json"))) == 8
    return result.stderr, next(out.glob("*-ranks.html"))


@pytest.mark.slow
def test_one_rank_of_eight_is_named_at_the_user_s_line_with_the_seven_grouped(eight) -> None:
    stderr, _ = eight
    lines = stderr.splitlines()
    head = next(index for index, line in enumerate(lines) if line.startswith("Ranks diverge"))
    assert "first at compile 0/1, compiled on some ranks only" in lines[head]
    assert lines[head + 1].strip() == SAID
    assert lines[head + 2].strip().startswith("at rank_batch8.py:") and "step(" in lines[head + 2]
    assert "ranks 0, 1, 2" not in stderr  # never the seven one by one


@pytest.mark.slow
def test_the_summary_s_table_and_compile_rows_group_the_ranks_that_agree(eight) -> None:
    lines = eight[0].splitlines()
    table = lines.index("Per rank")
    header = [cell.strip() for cell in lines[table + 1].split("  ") if cell.strip()]
    assert header == [SEVEN, "rank 5"]  # two columns, not eight
    compiles = next(line for line in lines if line.strip().startswith("0/0 "))
    assert f"{SEVEN}: 1g, 3 calls" in compiles and "rank 5: 1g, 2 calls" in compiles
    assert max(len(line) for line in lines[table:table + 20]) <= 120  # fits a terminal


@pytest.mark.slow
def test_the_page_says_it_at_the_user_s_line_and_its_rank_table_fits_1400_px(eight) -> None:
    _, page_path = eight
    page = page_path.read_text(encoding="utf-8")
    first = page[page.index('class="wt-rank-diverge"'):]
    assert f'<p class="wt-rank-first">{SAID}</p>' in first
    assert "<code>rank_batch8.py:" in first[:first.index("wt-rank-first")]  # the user's line, in the header
    table = page[page.index('class="wt-compiles wt-rank-table"'):]
    table = table[:table.index("</table>")]
    assert table.count("<th>") == 3 and f"<th>{SEVEN}</th>" in table and "<th>rank 5</th>" in table

    sync_api = pytest.importorskip("playwright.sync_api", reason="the layout check needs playwright")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium for the layout check")
    from tests.site.test_browser import CHROMIUM_ARGS

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            view = browser.new_page(viewport={"width": 1400, "height": 900})
            view.goto(page_path.as_uri(), wait_until="load")
            found = view.evaluate("""() => [...document.querySelectorAll('.wt-rank-table')].map(t => {
                const box = t.parentElement.getBoundingClientRect();
                return {right: t.getBoundingClientRect().right, edge: box.right,
                        overflow: t.parentElement.scrollWidth - t.parentElement.clientWidth,
                        page: document.documentElement.scrollWidth - innerWidth};
            })""")
        finally:
            browser.close()
    assert found, "no per-rank table on the page"
    for table_box in found:
        assert table_box["right"] <= table_box["edge"] + 1 and table_box["overflow"] <= 0, table_box
        assert table_box["page"] <= 0, table_box
