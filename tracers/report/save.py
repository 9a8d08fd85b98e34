"""`python -m tracers report`: a trace file as a standalone HTML page whose spans link to chapters and source."""

from __future__ import annotations

import os
import webbrowser
from pathlib import Path

from tracers.capture.env import source_url
from tracers.sites import base_release, user_site
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_BY_ID

DEFAULT_SITE = Path("build/html")  # where `nox -s docs` puts the walkthrough


class ReportUnavailable(Exception):
    """The page needs Pygments (the `docs` or `test` extra); the message says so in one line."""


def chapter_site(site: str | None, torch_version: str = "") -> tuple[str | None, str]:
    """The walkthrough's base URL and how it was chosen: ``--site``, else ``build/html`` here (a checkout's
    ``nox -s docs``), else the per-user site built for the trace's torch release (tracers/sites.py); else none, and
    why."""
    if site:
        if "://" in site:
            return site.rstrip("/") + "/", "the site given with --site"
        path = Path(site)
        if path.is_dir():
            return path.resolve().as_uri() + "/", "the site given with --site"
        return None, f"--site {site} is not a directory"
    if (DEFAULT_SITE / "index.html").exists():
        return DEFAULT_SITE.resolve().as_uri() + "/", f"the site built in {DEFAULT_SITE} here"
    release = base_release(torch_version)
    found = user_site(release) if release else None
    if found is not None:
        return found.resolve().as_uri() + "/", f"the walkthrough built for torch {release} in the user cache"
    return None, (f"no walkthrough is built for torch {release or '(unknown)'} in the user cache; "
                  "python -m walkthrough build (or torch-compile-walkthrough build) builds it, --site names another")


def page_urls(base: str | None):
    """A docs path (``chapters/05-graph-breaks`` or ``…#section``) -> its URL in the site at ``base``, if any."""

    def page_url(path: str) -> str | None:
        page, _, section = path.partition("#")
        return f"{base}{page}.html" + (f"#{section}" if section else "") if base else None

    return page_url


def links_for(trace: Trace, trace_file: Path, page_dir: Path, site: str | None):
    from .report import Links

    base, note = chapter_site(site, trace.info.torch_version)

    def chapter_url(stage_id: str) -> str | None:
        stage = STAGE_BY_ID.get(stage_id)
        return f"{base}{stage.chapter}.html" if base and stage else None

    def target_url(target: str) -> str | None:
        found = trace.info.target_sources.get(target)
        if not found:
            return None
        path, start, end = found
        return source_url(path, start, end, trace.info.torch_git_sha)

    download = os.path.relpath(trace_file.resolve(), page_dir.resolve())
    return Links(chapter_url=chapter_url, source_url=target_url, download_url=Path(download).as_posix(),
                 site_url=base, site_note=note, page_url=page_urls(base))


def write_report(trace: Trace, trace_file: Path, out_dir: Path | None = None, site: str | None = None) -> Path:
    """Write ``<trace stem>.html`` (beside the trace unless ``out_dir``); returns its path."""
    try:
        from tracers.analysis.facts import analyze
        from tracers.report.executed import installed_source

        from .report import RenderOptions, render_page
        from .report.options import PAGE_PAYLOAD_CHARS
    except ImportError as error:
        raise ReportUnavailable(f"the HTML page needs {error.name}: pip install pygments") from None
    page_dir = out_dir or trace_file.parent
    page_dir.mkdir(parents=True, exist_ok=True)
    page = page_dir / f"{trace_file.stem}.html"
    options = RenderOptions(title=trace_file.stem, max_total_payload_chars=PAGE_PAYLOAD_CHARS)
    torch = installed_source() if trace.info.lines_recorded or trace.executed_lines else None
    html = render_page(trace, analyze(trace), links_for(trace, trace_file, page_dir, site), options, torch)
    page.write_text(html, encoding="utf-8")
    return page


def open_in_browser(page: Path) -> None:
    webbrowser.open(page.resolve().as_uri())
