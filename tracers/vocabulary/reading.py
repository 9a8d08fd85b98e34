"""Files read as input (traces, logs, sources they name): regular files only, bounded, errors that say what failed."""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path
from typing import BinaryIO

from .printable import printable_value

# A trace or merged file is parsed whole (json.loads): one larger than this is refused with its size, not read
# into memory. The biggest real ones are a few tens of MB (8 ranks of a long run, merged); logs are streamed.
MAX_JSON_BYTES = 1_000_000_000
# A log is streamed: reading one stops after this much text (gunzipped) or this long, with a note of how much was
# read (a 1 MB gzip can hold 1 GB of one repeated line; a real log of a long run is a few hundred MB). Both are
# settable, for the rare real log beyond them.
READ_BYTES_ENV = "TRACERS_MAX_READ_BYTES"  # bytes (``2G``, ``500M`` or a number): text read of one input
READ_SECONDS_ENV = "TRACERS_MAX_READ_SECONDS"  # seconds spent reading one log
MAX_LOG_BYTES = 2_000_000_000
MAX_READ_SECONDS = 45.0
# A directory of logs is read up to this many of them, the lowest ranks first: each is a process's trace in memory
# and on the page (10,000 small logs took 43 s and 900 MB). Settable, for a larger job read whole.
LOGS_ENV = "TRACERS_MAX_LOGS"
MAX_LOGS = 1024
# A source file a log names is parsed for its function names only; real modules are far below this.
MAX_SOURCE_BYTES = 8 << 20
SOURCE_SUFFIXES = (".py",)
_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def _setting(name: str, default: float, units: bool) -> float:
    """A positive number from the environment (``2G``, ``1.5e9``), else ``default`` (unset or not a number)."""
    text = os.environ.get(name, "").strip().upper().removesuffix("B")
    scale = _UNITS.get(text[-1:], None) if units and text[-1:].isalpha() else 1
    number = text[:-1] if units and text[-1:].isalpha() else text
    try:
        value = float(number) * (scale or 0)
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default


def json_limit() -> int:
    """The largest trace file parsed whole: ``$TRACERS_MAX_READ_BYTES`` if set, else MAX_JSON_BYTES."""
    return int(_setting(READ_BYTES_ENV, MAX_JSON_BYTES, units=True))


def log_limits() -> tuple[int, float]:
    """How much text of one log is read, and for how long: the environment's settings, else the defaults."""
    return int(_setting(READ_BYTES_ENV, MAX_LOG_BYTES, units=True)), _setting(READ_SECONDS_ENV, MAX_READ_SECONDS,
                                                                             units=False)


def logs_limit() -> int:
    """How many logs of one directory are read: the environment's setting, else MAX_LOGS."""
    return int(_setting(LOGS_ENV, MAX_LOGS, units=False))


def _raise_to(size: float) -> str:
    """A setting of READ_BYTES_ENV above ``size``, as a user would type it."""
    for unit, scale in (("G", 10**9), ("M", 10**6)):
        if size >= scale:
            return f"{int(size // scale) + 1}{unit}"
    return str(int(size) + 1)


def stopped_line(name: str, read: int, seconds: float, by_size: bool, limit: float) -> str:
    """One line: where reading ``name`` stopped, the bound it met, and the setting that raises it."""
    if by_size:
        return (f"{name}: stopped after {_size(read)} of text, the bound ({_size(int(limit))}); the rest is not read"
                f" ({READ_BYTES_ENV}={_raise_to(limit * 4)} raises it)")
    return (f"{name}: stopped after {seconds:.0f} s, the bound, with {_size(read)} of text read; the rest is not "
            f"read ({READ_SECONDS_ENV}={int(limit * 4)} raises it)")


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class ReadError(OSError):
    """An input that cannot be read; the message is one line and names the file and why (never a write problem),
    printable on a terminal whatever the file's name holds."""

    def __init__(self, message: str):
        super().__init__(printable_value(message))


def _not_regular(path: Path, mode: int, what: str, kernel: bool = False) -> ReadError:
    if stat.S_ISDIR(mode):
        return ReadError(f"{path}: is a directory, not a {what}")
    kind = "a file of a kernel filesystem, /proc or /sys" if kernel else next(
        (name for test, name in _KINDS if test(mode)), "not a regular file")
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
    """``path`` opened for reading in binary, refused at once unless it is a regular file, and read only up to the
    size it has now (a file that grows while it is read, a log still being written, is read as it was).

    Opened non-blocking, then checked on the open descriptor: a FIFO without a writer would otherwise block
    the open forever, and a device (``/dev/zero``) has no end to read to. A file of a kernel filesystem
    (``/proc/kmsg``, ``/sys/kernel/tracing/trace_pipe``) passes for a regular file of size 0 and blocks: refused
    like a FIFO."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or _kernel_file(path, st):
            raise _not_regular(path, st.st_mode, what, _kernel_file(path, st))
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except ReadError:
        raise
    except OSError as error:
        raise ReadError(f"{path}: {_why(error)}") from None
    try:
        st = os.fstat(handle)
        if not stat.S_ISREG(st.st_mode) or _kernel_file(path, st):  # replaced between the stat and the open
            raise _not_regular(path, st.st_mode, what, _kernel_file(path, st))
        os.set_blocking(handle, True)
        return io.BufferedReader(_UpTo(io.FileIO(handle, "rb"), st.st_size))
    except BaseException:
        os.close(handle)
        raise


class _UpTo(io.RawIOBase):
    """A file read up to ``size`` bytes, its size when it was opened: what is appended meanwhile is not read."""

    def __init__(self, file: io.FileIO, size: int):
        self._file, self._left = file, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # noqa: ANN001 - a writable buffer
        if self._left <= 0:
            return 0
        view = memoryview(buffer)
        read = self._file.readinto(view[:self._left] if len(view) > self._left else view)
        self._left -= read or 0
        return read

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        self._file.close()
        super().close()


# Kernel filesystems whose files stat as regular (size 0, or a made-up size: /proc/kcore) and whose reads block or
# never end. Their mount points' devices, and their paths, to tell their files (a bind mount elsewhere keeps its
# device number).
_KERNEL_MOUNTS = ("/proc", "/sys", "/sys/kernel/debug", "/sys/kernel/tracing", "/sys/fs/cgroup")
_kernel_devices: set[int] | None = None


def _kernel_file(path: Path, st: os.stat_result) -> bool:
    """Whether ``path`` (stat ``st``) lies on procfs, sysfs, debugfs, tracefs or cgroupfs."""
    global _kernel_devices
    if not stat.S_ISREG(st.st_mode):
        return False
    if _kernel_devices is None:
        devices = set()
        for mount in _KERNEL_MOUNTS:
            try:
                mounted = os.stat(mount)
            except OSError:
                continue
            if mounted.st_dev != os.stat("/").st_dev:  # a mount, not a folder of the root filesystem
                devices.add(mounted.st_dev)
        _kernel_devices = devices
    if st.st_dev in _kernel_devices:
        return True
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return real.startswith(("/proc/", "/sys/"))


def read_bounded(path: Path, limit: int | None = None, what: str = "file") -> bytes:
    """The whole of a regular file of at most ``limit`` bytes (default: ``json_limit()``), as large as it was when
    opened; a larger one is refused with its size, the bound and how to raise it."""
    limit = json_limit() if limit is None else limit
    with open_input(path, what) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            raise ReadError(f"{path}: {_size(size)}, more than the {_size(limit)} this tool reads whole"
                            f" ({READ_BYTES_ENV}={_raise_to(size)} raises the bound)")
        try:
            return stream.read()  # up to its size when opened (open_input)
        except OSError as error:
            raise ReadError(f"{path}: {_why(error)}") from None


def read_text(path: Path, limit: int | None = None, what: str = "file") -> str:
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
