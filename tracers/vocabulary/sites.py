"""Where a built walkthrough lives for a torch release: the per-user location and marker that pages read."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from .releases import public_version

# The convention is shared by two sides that never import each other's code paths: ``python -m walkthrough
# build`` (outside a checkout) writes each release's site to ``user_sites()/<release>/`` and drops MARKER in it;
# a trace page written later, anywhere, links its chapters there when the marker names the trace's release.
# Standard library only: the tracer runs where only torch is installed, and never imports ``walkthrough``.
CACHE_ENV = "TORCH_WALKTHROUGH_CACHE"  # one per-user cache root: fetched wheels in wheels/, built sites in site/
MARKER = "torch-compile-walkthrough.json"
MARKER_FORMAT = 1


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
        try:
            data = json.loads((site / MARKER).read_text(encoding="utf-8"))
            marker = cls(str(data["release"]), str(data["torch_version"]), str(data["torch_git"]),
                         str(data["toolkit"]), int(data["format"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return marker if marker.format == MARKER_FORMAT and (site / "index.html").is_file() else None


def user_site(release: str) -> Path | None:
    """The per-user walkthrough built for this torch release (``2.13.0+cpu`` will do), if there is one."""
    release = public_version(release)
    if not release:
        return None
    site = user_sites() / release
    marker = SiteMarker.read(site)
    return site if marker is not None and marker.release == release else None
