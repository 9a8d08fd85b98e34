"""Writing a file so that a reader never sees half of it: a temporary file beside it, then a rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_text_atomic(path: Path, text: str | Iterable[str]) -> Path:
    """Write ``text`` (a string, or its pieces in order: a page written as it is made) to ``path`` through a temporary
    file in the same folder, created if missing.

    The file gets the permissions an ordinary ``open(path, "w")`` would give (mkstemp's are private),
    since traces, measurements and locks are data to share or commit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            if isinstance(text, str):
                stream.write(text)
            else:
                stream.writelines(text)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
