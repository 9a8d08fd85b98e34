"""Where a trace page's chapter links go: --site, build/html here, or the per-user walkthrough of the trace's torch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracers.vocabulary import sites
from tracers.report.options import Links
from tracers.report.page import render_site_note
from tracers.report.links import chapter_site
from tracers.analysis.report_model import build_report
from tracers.report.save import write_page
from tracers.vocabulary.sites import (
    MARKER,
    SiteMarker,
    public_version,
    cache_root,
    user_site,
    user_sites,
)
from tracers.tracefile.chrome import load
from tracers.tracefile.stages import STAGE_BY_ID
from walkthrough import source

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "mlp-cpu-cold.json"  # torch 2.13.0+cpu


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A fresh per-user cache, and a working directory with no build/html in it."""
    monkeypatch.setenv(sites.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def built_site(release: str, version: str | None = None) -> Path:
    """What `python -m walkthrough build` leaves in the user cache: an index page and the marker."""
    site = user_sites() / release
    site.mkdir(parents=True)
    (site / "index.html").write_text("<html></html>")
    SiteMarker(release, version or f"{release}+cpu", "abc123", "0.1.0").write(site)
    return site


def test_cache_root_follows_the_override_then_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv(sites.CACHE_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "mine"
    assert source.cache_dir() == tmp_path / "mine" / "wheels"  # wheels and sites share one root
    assert user_sites() == tmp_path / "mine" / "site"
    monkeypatch.delenv(sites.CACHE_ENV)
    assert cache_root() == tmp_path / "xdg" / "torch-compile-walkthrough"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "torch-compile-walkthrough"


def test_marker_round_trip_and_what_is_not_a_site(cache):
    site = built_site("2.13.0")
    assert SiteMarker.read(site) == SiteMarker("2.13.0", "2.13.0+cpu", "abc123", "0.1.0")
    assert user_site("2.13.0+cu126") == site  # any build of the release: they share their Python source
    assert user_site("2.15.0") is None and user_site("") is None
    (site / "index.html").unlink()
    assert SiteMarker.read(site) is None  # a marker without its site (a build that failed half-way)
    (site / "index.html").write_text("")
    wrong_format = '{"release": "2.13.0", "torch_version": "", "torch_git": "", "toolkit": "", "format": 99}'
    for broken in ("{", '{"release": "2.13.0"}', wrong_format):
        (site / MARKER).write_text(broken)
        assert SiteMarker.read(site) is None


def test_a_site_filed_under_another_release_is_not_used(cache):
    site = user_sites() / "2.13.0"
    site.mkdir(parents=True)
    (site / "index.html").write_text("")
    SiteMarker("2.15.0", "2.15.0", "", "0.1.0").write(site)
    assert user_site("2.13.0") is None


def test_public_version():
    assert public_version("2.13.0+cpu") == "2.13.0" and public_version("2.15.0") == "2.15.0" and public_version("") == ""


def test_the_trace_s_own_release_is_linked_and_named(cache):
    site = built_site("2.13.0")
    base, note = chapter_site(None, "2.13.0+cpu")
    assert base == site.resolve().as_uri() + "/"
    assert note == "the walkthrough built for torch 2.13.0 in the user cache"
    base, note = chapter_site(None, "2.15.0")
    assert base is None and "no walkthrough is built for torch 2.15.0" in note and "walkthrough build" in note


def test_site_option_and_build_html_come_first(cache, tmp_path):
    built_site("2.13.0")
    assert chapter_site("https://example.org/w", "2.13.0") == ("https://example.org/w/", "the site given with --site")
    assert chapter_site(str(tmp_path), "2.13.0") == (tmp_path.resolve().as_uri() + "/", "the site given with --site")
    assert chapter_site(str(tmp_path / "gone"), "2.13.0") == (None, f"--site {tmp_path / 'gone'} is not a directory")
    html = tmp_path / "build" / "html"
    html.mkdir(parents=True)
    (html / "index.html").write_text("")
    assert chapter_site(None, "2.13.0") == (html.resolve().as_uri() + "/", "the site built in build/html here")


def test_the_page_links_chapters_into_the_user_site_and_says_so(cache, tmp_path):
    site = built_site("2.13.0")
    trace = load(RECORDED)
    page = write_page(build_report(trace), RECORDED, tmp_path / "pages").read_text()
    base = site.resolve().as_uri()
    assert f'href="{base}/{STAGE_BY_ID["frame"].chapter}.html"' in page
    assert (f"Chapter links go to the walkthrough built for torch 2.13.0 in the user cache: "
            f'<a href="{base}/index.html">{base}/</a>.') in page
    other = write_page(build_report(trace), RECORDED, tmp_path / "other", site="https://example.org/w").read_text()
    assert f'href="https://example.org/w/{STAGE_BY_ID["frame"].chapter}.html"' in other and base not in other
    assert "Chapter links go to the site given with --site" in other


def test_without_a_site_the_page_says_why(cache, tmp_path):
    page = write_page(build_report(load(RECORDED)), RECORDED, tmp_path).read_text()
    assert "No chapter links: no walkthrough is built for torch 2.13.0 in the user cache" in page
    assert not re.search(r'href="[^"]*chapters/', page)


def test_the_site_note_is_escaped():
    note = render_site_note(Links(site_url='file:///x/"<b>/', site_note="--site <b> is not a directory"))
    assert "<b>" not in note and "&lt;b&gt;" in note and "&quot;" in note
    assert render_site_note(Links()) == "" and render_site_note(None) == ""
