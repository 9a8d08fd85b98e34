"""One real build of the site per test session (conf.py at the root, warnings as errors), shared by the site tests."""

from __future__ import annotations

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
    if "walkthrough.traces" in site_extensions():
        trace_page = TRACE_PAGE
        (source / f"{TRACE_PAGE}.md").write_text(
            "---\norphan: true\n---\n\n# Trace check\n\n```{torch-trace} mlp\n```\n", encoding="utf-8")
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", str(ROOT),
         str(source), str(html)],
        capture_output=True, text=True, cwd=ROOT,
    )
    build = SiteBuild(source, html, result.returncode, result.stderr, time.perf_counter() - started, trace_page)
    _BUILDS["site"] = build
    return build
