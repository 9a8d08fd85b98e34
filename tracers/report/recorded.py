"""Find a recorded example trace in ``<root>/<device>/<release>/<stem>-<device>-<cache>.json``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tracers.capture.env import public_version

DEVICES = ("cpu", "cuda")
CACHE_MODES = ("cold", "warm")


@dataclass(frozen=True)
class Recording:
    device: str
    release: str  # the folder it was filed under
    path: Path


def file_name(stem: str, device: str, cache: str, suffix: str = "") -> str:
    """``suffix``: ``-rank<N>`` for one rank of a distributed run, ``-ranks`` for their merge."""
    return f"{stem}-{device}-{cache}{suffix}.json"


def release_key(release: str) -> tuple[int, ...]:
    """Order release folders numerically (2.10.0 after 2.9.1); anything after the numbers is ignored."""
    match = re.match(r"\d+(?:\.\d+)*", release)
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def find_recording(root: Path, stem: str, device: str, cache: str, reference: str,
                   suffix: str = "", prefer: str | None = None) -> Recording | None:
    """``prefer``'s recording (the release a site is built for) if there is one, else the reference's,
    else the newest release that has one. ``suffix`` picks one rank's file, e.g. ``-rank1``."""
    name = file_name(stem, device, cache, suffix)
    device_dir = root / device
    if not device_dir.is_dir():
        return None
    releases = [folder.name for folder in device_dir.iterdir() if (folder / name).is_file()]
    if not releases:
        return None
    reference = public_version(reference)
    wanted = [public_version(prefer)] if prefer else []
    release = next((r for r in [*wanted, reference] if r in releases), None) or max(releases, key=release_key)
    return Recording(device, release, device_dir / release / name)


def parse_side(text: str) -> tuple[str, str]:
    """``cuda/warm`` -> ``("cuda", "warm")``; raises ValueError naming the choices."""
    device, _, cache = text.strip().partition("/")
    if device not in DEVICES or cache not in CACHE_MODES:
        raise ValueError(f"{text.strip()!r} is not DEVICE/CACHE: DEVICE one of {', '.join(DEVICES)}, "
                         f"CACHE one of {', '.join(CACHE_MODES)} (e.g. cuda/cold)")
    return device, cache
