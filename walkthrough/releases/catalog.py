"""The supported torch releases: the one list that builds, recordings and the version switcher read."""

from __future__ import annotations

from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.vocabulary.releases import release_key

# Oldest first. The reference (tracers/vocabulary/releases.py) is one of them; a maintainer adds a release here, then
# runs `nox -s verify -- X` and `python -m walkthrough record --torch X` (README: "Every release").
SUPPORTED = ("2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0")


def supported() -> tuple[str, ...]:
    """Every supported release, oldest first, the reference always among them."""
    return tuple(sorted(set(SUPPORTED) | {REFERENCE_TORCH}, key=release_key))


def label(release: str) -> str:
    """How a release is named to readers: ``2.13.0 (reference)``."""
    return f"{release} (reference)" if release == REFERENCE_TORCH else release


def installed_release() -> str | None:
    """The release of the installed torch (``2.14.1``), read from its version.py without importing it; None if absent."""
    from walkthrough.source import SourceError, open_source

    try:
        return open_source("installed").base_version
    except SourceError:
        return None
