"""The walkthrough built for a real other release from its wheel (read in place, nothing installed): drift in the pages."""

from __future__ import annotations

import pytest

pytest.importorskip("sphinx")

from tests.sitebuild import ReleaseSite, built_release_site_or_skip  # noqa: E402
from walkthrough.releases.switcher import Switcher, links, render  # noqa: E402

pytestmark = pytest.mark.sphinx


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> ReleaseSite:
    return built_release_site_or_skip(tmp_path_factory.mktemp("releases"))


def test_nothing_is_installed_and_the_release_is_read_from_its_wheel(site):
    import importlib.metadata

    assert importlib.metadata.version("torch").startswith(site.reference)  # the reference stays installed
    page = (site.root / site.other / "chapters" / "01-entry.html").read_text(encoding="utf-8")
    assert f"torch {site.other}+" in page  # excerpts come from the wheel's release
    reference = (site.root / site.reference / "chapters" / "01-entry.html").read_text(encoding="utf-8")
    assert '<div class="wt-drift ' not in reference and 'wt-drift-mark' not in reference  # no drift marks


def test_a_known_drift_is_shown_where_the_reader_meets_it(site):
    """torch.compile's signature changed after 2.13.0 (verify's recorded reports: CHANGED in 2.14.1 and 2.15.0)."""
    page = (site.root / site.other / "chapters" / "01-entry.html").read_text(encoding="utf-8")
    assert f"changed since torch {site.reference}" in page
    assert 'title="changed since torch' in page and ">changed</sup>" in page  # symbol links carry the mark
    drifted = [block for block in page.split('<div class="wt-drift ')[1:] if 'data-symbol="torch:compile"' in block]
    assert drifted and 'data-status="CHANGED"' in drifted[0]
    assert '<details class="wt-drift-diff">' in drifted[0]  # the diff, one click away
    assert f"This is the walkthrough for torch {site.other}" in page


def test_the_what_changed_page_lists_the_drift_by_chapter(site):
    page = (site.root / site.other / "changes.html").read_text(encoding="utf-8")
    assert "wt-change-changed" in page and "<code>torch:compile</code>" in page
    assert "torch.compile entry" in page  # grouped by chapter and stage
    reference = (site.root / site.reference / "changes.html").read_text(encoding="utf-8")
    assert f'href="../{site.other}/changes.html"' in reference


def test_the_switcher_and_the_root_page(site):
    listing = Switcher.read(site.root / "releases.json")
    assert list(listing.pages) == [site.reference, site.other] and listing.reference == site.reference
    root = (site.root / "index.html").read_text(encoding="utf-8")
    assert f'url={site.reference}/index.html' in root and f'href="{site.other}/changes.html"' in root
    page = (site.root / site.other / "chapters" / "01-entry.html").read_text(encoding="utf-8")
    assert f'href="../../{site.reference}/chapters/01-entry.html"' in page


def test_a_page_missing_in_a_release_says_so():
    listing = Switcher("2.13.0", {"2.13.0": frozenset({"index", "chapters/a"}), "2.15.0": frozenset({"index"})})
    found = links(listing, "2.13.0", "chapters/a")
    assert [(l.release, l.href, l.exists, l.current) for l in found] == [
        ("2.13.0", "../../2.13.0/chapters/a.html", True, True), ("2.15.0", "../../2.15.0/index.html", False, False)]
    html = render(found)
    assert "does not exist in torch 2.15.0" in html and "2.13.0 (reference)" in html


def test_reference_site_says_which_release_recorded_its_cuda_tabs(site):
    page = (site.root / site.reference / "chapters" / "01-entry.html").read_text(encoding="utf-8")
    assert (f"No CUDA recording of this example with torch {site.reference} is committed: "
            "this one was recorded with torch 2.11.0.") in page


def test_a_page_uses_its_own_release_recording_else_the_reference_else_the_newest(tmp_path):
    from tracers.tracefile.names import TraceName, find_recording

    for release in ("2.11.0", "2.13.0", "2.15.0"):
        (tmp_path / "cpu" / release).mkdir(parents=True)
        (tmp_path / "cpu" / release / "mlp-cpu-cold.json").write_text("{}")
    (tmp_path / "cuda" / "2.11.0").mkdir(parents=True)
    (tmp_path / "cuda" / "2.11.0" / "mlp-cuda-cold.json").write_text("{}")
    find = lambda device, prefer: find_recording(tmp_path, TraceName("mlp", device, "cold"), "2.13.0", prefer=prefer).release  # noqa: E731
    assert [find("cpu", "2.15.0"), find("cpu", "2.12.1"), find("cpu", None)] == ["2.15.0", "2.13.0", "2.13.0"]
    assert [find("cuda", "2.11.0"), find("cuda", "2.15.0")] == ["2.11.0", "2.11.0"]  # 2.11.0's CUDA tabs
