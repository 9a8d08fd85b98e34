"""The site as built from conf.py (warnings as errors): torch links at the exact commit, pipeline map, banners, no CDN."""

from __future__ import annotations

import re
from html import unescape

import pytest
import torch

pytest.importorskip("furo")
pytest.importorskip("sphinx_design")

from tests.sitebuild import ROOT, SiteBuild, build_site  # noqa: E402
from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402
from tracers.tracefile.stages import STAGES  # noqa: E402
from walkthrough.banner import read_reports  # noqa: E402
from walkthrough.pages import scan_docs  # noqa: E402

pytestmark = pytest.mark.sphinx


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> SiteBuild:
    build = build_site(tmp_path_factory.mktemp("site"))
    assert build.returncode == 0, build.stderr
    return build


def test_site_builds_with_warnings_as_errors(site):
    index = site.page("index")
    sha = torch.version.git_version
    assert f"https://github.com/pytorch/pytorch/blob/{sha}/torch/__init__.py#L" in index
    assert f"blob/{sha}/torch/_functorch/partitioners.py#L" in index
    assert f"torch {REFERENCE_TORCH}" in index  # the reference release in the title


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_pipeline_map_shows_every_stage_in_order_linking_written_chapters(site):
    index = site.page("index")
    boxes = re.findall(r'<li class="wt-stage[^"]*">(.*?)</li>', index, flags=re.S)
    assert len(boxes) == len(STAGES)
    for stage, box in zip(STAGES, boxes):
        title = re.search(r'<span class="wt-stage-title">(.*?)</span></p>', box, flags=re.S).group(1)
        assert _text(title) == stage.title
        written = (site.html / f"{stage.chapter}.html").exists()
        assert (f'href="{stage.chapter}.html"' in box) is written, stage.id
        assert ("chapter to come" in box) is not written


def test_every_page_with_torch_content_shows_its_torch_and_verify_status(site):
    reports = read_reports(ROOT / "docs" / "verify")
    assert reports, "the site links recorded verify reports"
    pages = [refs.page for refs in scan_docs(site.source)]
    assert "index" in pages
    for page in pages:
        html = site.page(page)
        banner = re.search(r'<div class="wt-banner[ "][^>]*>(.*?)</div>', html, flags=re.S)
        assert banner, page
        text = _text(banner.group(1))
        assert f"torch {torch.__version__}" in text and torch.version.git_version[:10] in text
        assert re.search(rf"checked against torch {re.escape(REFERENCE_TORCH)}: (\d+)/\1 current", text), text
        if page == "index":  # the front page: one quiet line for the whole site, the detail a click away
            assert 'href="verify/index.html"' in banner.group(1) and "see what drifted" in text
            continue
        for report in reports:
            depth = "../" * page.count("/")
            assert f'href="{depth}verify/{report.release}.html"' in banner.group(1), (page, report.release)
            assert re.search(rf"{re.escape(report.release)} (not checked yet|\d+ hold|all \d+ hold|holds|"
                             rf"\d+ (changed|gone))", text), text
    # The banner sits under the title, once.
    index = site.page("index")
    banners = [m.start() for m in re.finditer(r'class="wt-banner[ "]', index)]
    assert len(banners) == 1 and index.index("</h1>") < banners[0]


def test_pages_without_torch_content_have_no_banner(site):
    summary = site.page("verify/SUMMARY")
    assert "wt-banner" not in summary and "Counts per status" in summary


def test_the_site_loads_nothing_from_elsewhere(site):
    """No CDN: every script, stylesheet and image of every page comes from the build itself."""
    for path in site.html.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        for tag, attribute in (("script", "src"), ("link", "href"), ("img", "src")):
            for value in re.findall(rf'<{tag}\b[^>]*\b{attribute}="([^"]+)"', html):
                assert not re.match(r"(https?:)?//", value), f"{path.name}: {tag} {value}"


def _names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower().replace("_", "-") for req in requirements}


def test_docs_and_test_extras_install_every_extension_and_the_theme():
    """``nox -s docs`` (docs extra) and the site tests (test extra) install what conf.py names."""
    import runpy
    import tomllib

    conf = runpy.run_path(str(ROOT / "conf.py"))
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    local = {"walkthrough", "tracers"}  # this repo's own packages
    needed = {name.split(".")[0].replace("_", "-") for name in conf["extensions"]} - local
    needed |= {"sphinx", conf["html_theme"]}
    for extra in ("docs", "test"):
        assert needed <= _names(extras[extra]), (extra, needed - _names(extras[extra]))
    assert "playwright" in _names(extras["test"])  # the browser test's driver


def test_the_verify_summary_counts_every_report_from_the_reports_themselves(site):
    from tracers.tracefile.stages import all_targets
    from walkthrough.sphinx.verify_counts import counts_table

    summary = site.page("verify/SUMMARY")
    reports = read_reports(ROOT / "docs" / "verify")
    table = re.search(r'<table class="docutils align-default wt-verify-counts">.*?</table>', summary, re.S)
    assert table and table.group(0) == counts_table(reports)
    for report in reports:
        assert f'<a href="{report.release}.html">{report.release}</a>' in table.group(0)
        hooks = report.counts()["hook"]
        assert sum(hooks.values()) == len(all_targets())  # every hook target is in every report
        row = re.search(rf'<tr><td><a href="{re.escape(report.release)}\.html">.*?</tr>', table.group(0)).group(0)
        assert " / ".join(str(hooks[s]) for s in ("SAME", "MOVED", "CHANGED", "MISSING")) in row
