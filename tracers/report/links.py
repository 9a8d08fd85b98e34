"""Where a page's links go: the walkthrough site its chapter links point to, and torch's source at the trace's commit."""

from __future__ import annotations

import os
from pathlib import Path

from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.releases import public_version, source_url
from tracers.vocabulary.sites import is_release, user_site

from .options import Links

DEFAULT_SITE = Path("build/html")  # where `nox -s docs` puts the walkthrough


def chapter_site(site: str | None, torch_version: str = "") -> tuple[str | None, str]:
    """The walkthrough's base URL and how it was chosen: ``--site``, else ``build/html`` here (a checkout's
    ``nox -s docs``), else the per-user site built for the trace's torch release (tracers/vocabulary/sites.py);
    else none, and why."""
    if site:
        if "://" in site:
            return site.rstrip("/") + "/", "the site given with --site"
        path = Path(site)
        if path.is_dir():
            return path.resolve().as_uri() + "/", "the site given with --site"
        return None, f"--site {site} is not a directory"
    if (DEFAULT_SITE / "index.html").exists():
        return DEFAULT_SITE.resolve().as_uri() + "/", f"the site built in {DEFAULT_SITE} here"
    release = public_version(torch_version) if isinstance(torch_version, str) else ""
    if not is_release(release):  # a trace's version names a cache folder only when it is a release number
        release = ""
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


def chapter_links(site: str | None, torch_version: str = ""):
    """``page_urls`` of the site ``chapter_site`` picks: the terminal's findings link where the page's do."""
    return page_urls(chapter_site(site, torch_version)[0])


def links_for(trace: Trace, trace_file: Path, page_dir: Path, site: str | None) -> Links:
    """The links of ``trace``'s page written into ``page_dir``: chapters, torch's source, the trace file itself."""
    base, note = chapter_site(site, trace.info.torch_version)

    def chapter_url(stage_id: str) -> str | None:
        stage = STAGE_BY_ID.get(stage_id)
        return f"{base}{stage.chapter}.html" if base and stage else None

    def target_url(target: str) -> str | None:
        found = trace.info.target_sources.get(target)
        if not found:
            return None
        path, start, end = found
        return source_url(path, start, end, trace.info.torch_git_sha, trace.info.torch_version) or None

    download = os.path.relpath(trace_file.resolve(), page_dir.resolve())
    return Links(chapter_url=chapter_url, source_url=target_url, download_url=Path(download).as_posix(),
                 site_url=base, site_note=note, page_url=page_urls(base))
