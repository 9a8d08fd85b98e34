"""Where a built walkthrough lives for a torch release: the per-user location and marker that pages read."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from .reading import read_text
from .releases import public_version

# The convention is shared by two sides that never import each other's code paths: ``python -m walkthrough
# build`` (outside a checkout) writes each release's site to ``user_sites()/<release>/`` and drops MARKER in it;
# a trace page written later, anywhere, links its chapters there when the marker names the trace's release.
# Standard library only: the tracer runs where only torch is installed, and never imports ``walkthrough``.
CACHE_ENV = "TORCH_WALKTHROUGH_CACHE"  # one per-user cache root: fetched wheels in wheels/, built sites in site/
MARKER = "torch-compile-walkthrough.json"
MARKER_FORMAT = 1
MARKER_BYTES = 1 << 16  # a marker is a few lines


def cache_root() -> Path:
    """``$TORCH_WALKTHROUGH_CACHE``, else ``$XDG_CACHE_HOME/torch-compile-walkthrough`` (``~/.cache`` by default)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "torch-compile-walkthrough"


def user_sites() -> Path:
    """The per-user site root: ``<release>/`` for each built release (plus, after ``--all``, a root page)."""
    return cache_root() / "site"


@dataclass(frozen=True)
class SiteMarker:
    """What a built site says of itself, in ``<site>/MARKER``."""

    release: str  # the torch release its chapters were built for, e.g. 2.13.0
    torch_version: str  # that torch's full version, e.g. 2.13.0+cpu
    torch_git: str  # its git commit
    toolkit: str  # the version of this package that built it
    format: int = MARKER_FORMAT

    def write(self, site: Path) -> Path:
        path = site / MARKER
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, site: Path) -> SiteMarker | None:
        """The marker of a built site (its ``index.html`` present), or None: no site, no marker, or not ours."""
        try:  # a regular file of a marker's size only: a FIFO or a /proc file there is refused, never waited on
            data = json.loads(read_text(site / MARKER, MARKER_BYTES, "site marker"))
            marker = cls(str(data["release"]), str(data["torch_version"]), str(data["torch_git"]),
                         str(data["toolkit"]), int(data["format"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return marker if marker.format == MARKER_FORMAT and (site / "index.html").is_file() else None


# A release as torch numbers them (PEP 440's public part: 2.13.0, 2.6.0rc1, 2.12.0.dev20260101), ASCII digits only:
# a trace's version names a folder of the user's cache only when it is one. Read from a trace or a log, it could
# be anything: ``/etc``, ``../..``, a name with a FIFO behind it.
RELEASE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,6}){1,3}(?:(?:a|b|rc)[0-9]{1,6})?(?:\.post[0-9]{1,6})?"
                     r"(?:\.dev[0-9]{1,14})?")


def is_release(text: object) -> bool:
    """Whether ``text`` is a torch release number (``2.13.0``; no local part, no path, nothing else)."""
    return isinstance(text, str) and RELEASE.fullmatch(text) is not None


def user_site(release: str) -> Path | None:
    """The per-user walkthrough built for this torch release (``2.13.0+cpu`` will do), if there is one; None too
    for anything that is not a release (tracers/vocabulary/sites.py: RELEASE), before it names any path."""
    release = public_version(release) if isinstance(release, str) else ""
    if not is_release(release):
        return None
    root = user_sites()
    site = root / release
    try:  # a folder of the cache root, not a link out of it
        if not site.resolve().is_relative_to(root.resolve()):
            return None
    except (OSError, RuntimeError):
        return None
    marker = SiteMarker.read(site)
    return site if marker is not None and marker.release == release else None
