"""One real build of the site per test session (conf.py at the root, warnings as errors), shared by the site tests."""

from __future__ import annotations

import re
import runpy
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE_PAGE = "trace-check"  # a page of the test build only, so a call tree is on the site before any chapter has one
_BUILDS: dict[str, "SiteBuild"] = {}


@dataclass(frozen=True)
class SiteBuild:
    source: Path
    html: Path
    returncode: int
    stderr: str
    seconds: float
    trace_page: str | None  # docname of the test-only trace page, when the trace directive is on the site

    def page(self, docname: str) -> str:
        return (self.html / f"{docname}.html").read_text(encoding="utf-8")


def site_extensions() -> list[str]:
    return list(runpy.run_path(str(ROOT / "conf.py"))["extensions"])


def build_site(base: Path) -> SiteBuild:
    """docs/ copied under ``base`` (plus the trace page), built with ``sphinx-build -W -c <root>``; cached."""
    if "site" in _BUILDS:
        return _BUILDS["site"]
    source, html = base / "docs", base / "html"
    shutil.copytree(ROOT / "docs", source)
    trace_page = None
    if "walkthrough.sphinx.traces" in site_extensions():
        trace_page = TRACE_PAGE
        (source / f"{TRACE_PAGE}.md").write_text(
            "---\norphan: true\n---\n\n# Trace check\n\n```{torch-trace} mlp\n```\n\n"
            # Both devices' "compile time by your code" on one page: each part names its own ids (the zoomed
            # views), which the page must still hold once each.
            "```{torch-trace} by_code\n:parts: code\n```\n", encoding="utf-8")
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", str(ROOT),
         str(source), str(html)],
        capture_output=True, text=True, cwd=ROOT,
    )
    build = SiteBuild(source, html, result.returncode, result.stderr, time.perf_counter() - started, trace_page)
    _BUILDS["site"] = build
    return build


# A small site: enough for drift and the switcher, and the "Using the tracer" pages the front page's toctree lists.
RELEASE_PAGES = ("index.md", "changes.md", "python-api.md", "chapters/01-entry.md",
                 *sorted(f"using/{page.name}" for page in (ROOT / "docs" / "using").glob("*.md")))
OTHER_RELEASES = ("2.15.0", "2.14.1")  # the first whose wheel is in the cache is built beside the reference


@dataclass(frozen=True)
class ReleaseSite:
    root: Path  # <root>/<release>/..., <root>/index.html
    reference: str
    other: str
    built: tuple  # walkthrough.releases.build.Built, one per release
    seconds: float


def build_release_site(base: Path) -> ReleaseSite | None:
    """The reference and one other release (its cached wheel, read in place) built into one site; cached.

    None when no wheel of another release is in the cache (``python -m walkthrough verify --against 2.15.0``
    fetches one). The pages are a few real ones, with a lock written for them against the installed torch."""
    if "releases" in _BUILDS:
        return _BUILDS["releases"]  # type: ignore[return-value]
    from tracers.vocabulary.releases import REFERENCE_TORCH
    from walkthrough.lock import compute_lock, stage_hooks, write_lock
    from walkthrough.pages import scan_docs
    from walkthrough.releases.build import Planned, build_site
    from walkthrough.source import cached_wheel, open_source
    from walkthrough.symbols import resolver_for

    other = next(((release, wheel) for release in OTHER_RELEASES if (wheel := cached_wheel(release))), None)
    if other is None:
        return None
    docs = base / "docs"
    for page in RELEASE_PAGES:
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        # Links to chapters this small site leaves out become their text.
        text = re.sub(r"\[([^\]]+)\]\((\d\d-[\w-]+\.md)(#[\w-]*)?\)", r"\1", text)
        text = re.sub(r"\{ref\}`([^`<]+?)\s*<ch\d+-[\w-]+>`", r"\1", text)  # and links to their labels
        (docs / page).write_text(text, encoding="utf-8")
    for folder in ("verify", "_traces", "_compare"):  # the data the pages read (changes.md shows a comparison)
        shutil.copytree(ROOT / "docs" / folder, docs / folder)
    write_lock(compute_lock(resolver_for(open_source("installed")), scan_docs(docs), stage_hooks()),
               docs / "walkthrough.lock.json")
    started = time.perf_counter()
    built = build_site([Planned(REFERENCE_TORCH, "installed"), Planned(other[0], str(other[1]))], base / "site",
                       docs=docs, progress=lambda text: None)
    site = ReleaseSite(base / "site", REFERENCE_TORCH, other[0], tuple(built), time.perf_counter() - started)
    _BUILDS["releases"] = site  # type: ignore[assignment]
    return site


def built_release_site_or_skip(base: Path) -> ReleaseSite:
    """The release site for a test: skipped (saying how to fetch a wheel) when none is cached; every release built."""
    import pytest

    found = build_release_site(base)
    if found is None:
        pytest.skip("no wheel of torch 2.15.0 or 2.14.1 in the wheel cache: "
                    "python -m walkthrough verify --against 2.15.0 fetches one")
    for built in found.built:
        assert built.ok, built.output
    return found
