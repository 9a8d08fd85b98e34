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
_ANY_PACKAGES_DIR = re.compile(r'(?<=["\s(\'`])/(?:[^"\s/\\`]+/)+(?:site|dist)-packages/')


# Prefixes that would rewrite unrelated paths (a home of "/", a prefix of "/usr").
_TOO_BROAD = {"", "/usr", "/opt", "/bin", "/lib", "/home", "/var", "/etc", "/srv"}


def _prefixes() -> list[tuple[str, str]]:
    """(prefix, placeholder), longest first: package dirs before the home or prefix that holds them."""
    candidates: list[tuple[str, str]] = []
    package_dirs = {sysconfig.get_paths().get(key) for key in ("purelib", "platlib")}
    package_dirs.update(getattr(site, "getsitepackages", lambda: [])())
    package_dirs.add(getattr(site, "getusersitepackages", lambda: None)())
    package_dirs.update(installed_into())
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


def installed_into() -> set[str]:
    """Folders on sys.path that pip installed packages into outside site-packages (``pip install --target``, on
    PYTHONPATH): they hold a ``*.dist-info``. The working directory and folders in it stay the user's own."""
    here = os.getcwd().rstrip("/") + "/"
    found = set()
    for entry in sys.path:
        if not entry or (entry.rstrip("/") + "/").startswith(here) or not os.path.isdir(entry):
            continue
        try:
            with os.scandir(entry) as listing:
                if any(item.name.endswith(".dist-info") for item in listing):
                    found.add(entry)
        except OSError:
            continue
    return found


# No match of _ANY_PACKAGES_DIR holds one of these: it lies inside a stretch of text between two of them.
_BOUNDARY = re.compile(r'["\s\\]')
_LAST_BOUNDARY = re.compile(r'.*["\s\\]', re.DOTALL)
_PACKAGES_DIRS = ("site-packages/", "dist-packages/")


def scrub(serialized: str) -> str:
    """Replace this machine's path prefixes (as they appear inside JSON strings) by placeholders:
    ``./`` for the working directory, ``<site-packages>``, ``<tmp>``, ``<python>``, ``~``."""
    for prefix, placeholder in _prefixes():
        escaped = json.dumps(prefix)[1:-1]  # the prefix as json.dumps wrote it (non-ASCII escaped)
        if escaped not in serialized:  # one scan instead of two, over a merged trace of hundreds of MB
            continue
        serialized = _at_path_starts(serialized, escaped, placeholder)
    return _other_packages_dirs(serialized)


# Where a path starts in serialized JSON: the string's quote, after a space, a bracket, ``=`` (``--out=DIR``),
# ``:`` or ``,`` (lists of paths), a backquote (torch's messages quote files so), or an escaped newline or tab (a
# payload's lines). Anywhere else the prefix is
# the middle of another path: a ``tmp`` or home folder deeper in another machine's path keeps its place.
_PATH_OPENERS = frozenset('"\'`([{=:,;') | frozenset(" \t\n\r\f\v")
_ESCAPED_BREAKS = ("\\n", "\\t", "\\r")
_PATH_ENDS = frozenset('/":') | frozenset(" \t\n\r\f\v")  # after the prefix: its own end, or a path going on


def _at_path_starts(text: str, prefix: str, placeholder: str) -> str:
    """``text`` with ``prefix`` replaced by ``placeholder`` where a path starts with it (whole directory names)."""
    parts: list[str] = []
    done, size = 0, len(prefix)
    at = text.find(prefix)
    while at >= 0:
        end = at + size
        opens = at == 0 or text[at - 1] in _PATH_OPENERS or text[max(at - 2, 0):at] in _ESCAPED_BREAKS
        if opens and (end == len(text) or text[end] in _PATH_ENDS or text[end:end + 2] in _ESCAPED_BREAKS):
            parts += [text[done:at], placeholder]
            done = end
        at = text.find(prefix, end)
    return "".join(parts) + text[done:] if parts else text


def _other_packages_dirs(text: str) -> str:
    """``_ANY_PACKAGES_DIR.sub`` run only on the stretches of ``text`` that hold a ``site-`` or ``dist-packages/``."""
    # The regex alone tries its lookbehind at every character: seconds on a large merged trace that holds no
    # other machine's package directory at all, or only a few.
    upcoming = {needle: text.find(needle) for needle in _PACKAGES_DIRS}
    parts: list[str] = []
    done = 0
    while True:
        for needle, at in upcoming.items():
            if -1 < at < done:
                upcoming[needle] = text.find(needle, done)
        found = [at for at in upcoming.values() if at >= 0]
        if not found:
            break
        at = min(found)
        start = _stretch_start(text, done, at)
        end_match = _BOUNDARY.search(text, at)
        end = end_match.start() if end_match else len(text)
        # from the boundary before the stretch (the lookbehind reads it), to the boundary after it
        parts += [text[done:start], _ANY_PACKAGES_DIR.sub("<site-packages>/", text[start:end])]
        done = end
    return "".join(parts) + text[done:] if parts else text


def _stretch_start(text: str, low: int, at: int) -> int:
    """The last boundary character before ``at`` and not before ``low`` (``low`` when there is none)."""
    size = 256
    while True:
        begin = max(low, at - size)
        last = _LAST_BOUNDARY.match(text, begin, at)
        if last:
            return last.end() - 1
        if begin == low:
            return low
        size *= 4  # a long stretch: each look back covers more, so the whole is read about once
