"""Bad command-line input: the one exception the commands raise for it, and the checks they share."""

from __future__ import annotations

import tempfile
from pathlib import Path


class UsageError(ValueError):
    """Bad input found before anything runs; the message is one line, the exit status 2 (a ValueError to
    Python callers of the API)."""


def check_writable(directory: Path, option: str = "--out") -> None:
    """Create ``directory`` if needed and make sure a file can be written there, before any work."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".write-check-"):
            pass
    except OSError as error:
        raise UsageError(f"{option} {directory}: cannot write there ({error.strerror or error})") from None
