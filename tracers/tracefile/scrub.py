"""Machine-specific path prefixes in a serialized trace, replaced by portable placeholders."""

from __future__ import annotations

import json
import os
import re
import site
import sys
import sysconfig
import tempfile
from pathlib import Path

# Any other machine's package directory (a trace recorded elsewhere, a venv we do not know about).
_ANY_PACKAGES_DIR = re.compile(r'(?<=["\s(\'])/(?:[^"\s/\\]+/)+(?:site|dist)-packages/')


# Prefixes that would rewrite unrelated paths (a home of "/", a prefix of "/usr").
_TOO_BROAD = {"", "/usr", "/opt", "/bin", "/lib", "/home", "/var", "/etc", "/srv"}


def _prefixes() -> list[tuple[str, str]]:
    """(prefix, placeholder), longest first: package dirs before the home or prefix that holds them."""
    candidates: list[tuple[str, str]] = []
    package_dirs = {sysconfig.get_paths().get(key) for key in ("purelib", "platlib")}
    package_dirs.update(getattr(site, "getsitepackages", lambda: [])())
    package_dirs.add(getattr(site, "getusersitepackages", lambda: None)())
    candidates += [(directory, "<site-packages>") for directory in package_dirs if directory]
    candidates += [(os.getcwd(), "."), (tempfile.gettempdir(), "<tmp>")]
    candidates += [(prefix, "<python>") for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    candidates.append((str(Path.home()), "~"))
    usable = []
    for prefix, placeholder in candidates:
        prefix = prefix.rstrip("/")
        if prefix not in _TOO_BROAD:
            usable.append((prefix, placeholder))
    return sorted(set(usable), key=lambda item: len(item[0]), reverse=True)


def scrub(serialized: str) -> str:
    """Replace this machine's path prefixes (as they appear inside JSON strings) by placeholders:
    ``./`` for the working directory, ``<site-packages>``, ``<tmp>``, ``<python>``, ``~``."""
    for prefix, placeholder in _prefixes():
        escaped = json.dumps(prefix)[1:-1]  # the prefix as json.dumps wrote it (non-ASCII escaped)
        serialized = serialized.replace(escaped + "/", placeholder + "/")
        serialized = re.sub(re.escape(escaped) + r'(?=["\s:])', placeholder, serialized)
    return _ANY_PACKAGES_DIR.sub("<site-packages>/", serialized)
