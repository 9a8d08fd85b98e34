"""Files read as input (traces, logs, sources they name): regular files only, bounded, errors that say what failed."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

# A trace or merged file is parsed whole (json.loads): one larger than this is refused with its size, not read
# into memory. The biggest real ones are a few tens of MB (8 ranks of a long run, merged); logs are streamed.
MAX_JSON_BYTES = 1_000_000_000
# A source file a log names is parsed for its function names only; real modules are far below this.
MAX_SOURCE_BYTES = 8 << 20
SOURCE_SUFFIXES = (".py",)

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class ReadError(OSError):
    """An input that cannot be read; the message is one line and names the file and why (never a write problem)."""


def _not_regular(path: Path, mode: int, what: str) -> ReadError:
    if stat.S_ISDIR(mode):
        return ReadError(f"{path}: is a directory, not a {what}")
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return ReadError(f"{path}: not a regular {what} ({kind}): refused without reading it")


def _why(error: OSError) -> str:
    if error.errno == errno.ENOENT:
        return "no such file"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "cannot read it: permission denied"
    if error.errno == errno.ELOOP:
        return "cannot read it: a loop of symbolic links"
    if error.errno == errno.ENXIO:
        return "not a regular file (a socket or a device without its driver)"
    return f"cannot read it: {error.strerror or error}"


def open_input(path: Path, what: str = "file") -> BinaryIO:
    """``path`` opened for reading in binary, refused at once unless it is a regular file.

    Opened non-blocking, then checked on the open descriptor: a FIFO without a writer would otherwise block
    the open forever, and a device (``/dev/zero``) has no end to read to."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode, what)
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except ReadError:
        raise
    except OSError as error:
        raise ReadError(f"{path}: {_why(error)}") from None
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):  # replaced between the stat and the open
            raise _not_regular(path, mode, what)
        os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def read_bounded(path: Path, limit: int = MAX_JSON_BYTES, what: str = "file") -> bytes:
    """The whole of a regular file of at most ``limit`` bytes; a larger one is refused with its size."""
    with open_input(path, what) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            raise ReadError(f"{path}: {_size(size)}, more than the {_size(limit)} this tool reads whole")
        try:
            data = stream.read(limit + 1)
        except OSError as error:
            raise ReadError(f"{path}: {_why(error)}") from None
    if len(data) > limit:  # grew while being read
        raise ReadError(f"{path}: more than the {_size(limit)} this tool reads whole")
    return data


def read_text(path: Path, limit: int = MAX_JSON_BYTES, what: str = "file") -> str:
    """``read_bounded`` decoded as UTF-8 (a leading byte-order mark dropped); raises ReadError, UnicodeDecodeError."""
    return read_bounded(path, limit, what).decode("utf-8").removeprefix("\ufeff")


def _size(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def under(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether ``path`` (symbolic links resolved) lies inside one of ``roots`` (resolved too)."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a loop of links
        return False
    return any(real.is_relative_to(root) for root in roots)


def read_source(filename: str, roots: tuple[Path, ...]) -> str | None:
    """A Python source file a trace or log names, or None: read only when it is a regular ``.py`` file of a sane
    size under one of ``roots`` (directories the user allowed). A log is data, not a list of files to open."""
    path = Path(filename)
    if not roots or path.suffix not in SOURCE_SUFFIXES or not under(path, roots):
        return None
    try:
        return read_text(path.resolve(), MAX_SOURCE_BYTES, "source file")
    except (ReadError, UnicodeDecodeError, OSError):
        return None


def allowed_roots(*roots: Path | str | None) -> tuple[Path, ...]:
    """The directories given, resolved, those that exist only."""
    found = []
    for root in roots:
        if root is None:
            continue
        try:
            path = Path(root).resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if path.is_dir() and path not in found:
            found.append(path)
    return tuple(found)
