"""A log's bytes as lines: regular files only, gzip told by its first bytes, a leading BOM dropped, lines bounded."""

from __future__ import annotations

import gzip
import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

from tracers.vocabulary.reading import log_limits, open_input, stopped_line

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark, which an editor or a Windows copy puts before the first record
# A line longer than this is cut (its record then fails its md5 or its JSON, and is counted): torch's longest lines
# are a graph's or a kernel's source lines, far shorter; a file without newlines must not be held whole.
MAX_LINE_BYTES = 64 << 20
BLOCK_BYTES = 1 << 20  # read at once: large enough that each block's overhead is lost in its lines
NOT_GZIP = "file named .gz that is not gzip (read as plain text)"
CUT_LINE = f"line longer than {MAX_LINE_BYTES >> 20} MB (cut)"
STOPPED = "read stopped at a bound"  # its place says how much was read, the bound, and the setting that raises it


class _Stop(Exception):
    """A bound met: the read ends there, as if the log ended (noted once)."""


class Notes(Protocol):
    def note(self, kind: str, where: str) -> None: ...


class LogLines:
    """The lines of an open log, each at most MAX_LINE_BYTES (the rest of a longer one skipped, the line counted); the
    text read bounded in size and time (vocabulary/reading.py: log_limits)."""

    def __init__(self, stream: BinaryIO, raw: BinaryIO, name: str, notes: Notes | None):
        self._stream, self._raw, self._name, self._notes = stream, raw, name, notes
        self._limit, self._seconds = log_limits()
        self._read, self._started = 0, time.monotonic()
        self.stopped: str | None = None  # the line saying where a bound stopped the read, once one did

    def _charge(self, data: bytes) -> bytes:
        """``data`` counted against the bounds (the text read, the time since the log was opened); raises _Stop."""
        self._read += len(data)
        elapsed = time.monotonic() - self._started
        if self._read > self._limit or elapsed > self._seconds:
            by_size = self._read > self._limit
            self.stopped = stopped_line(self._name, self._read, elapsed, by_size,
                                        self._limit if by_size else self._seconds)
            if self._notes is not None:
                self._notes.note(STOPPED, self.stopped)
            raise _Stop
        return data

    def __enter__(self) -> LogLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.close()
        self._raw.close()  # a GzipFile leaves the file it reads open

    def __iter__(self):  # noqa: ANN204 - an iterator of bytes lines
        return self._bounded_lines()

    def _bounded_lines(self):  # noqa: ANN202 - a generator of bytes lines
        try:
            yield from self._lines()
        except _Stop:
            return

    def _lines(self):  # noqa: ANN202 - a generator of bytes lines
        readline = self._stream.readline
        charge = self._charge
        number = 0
        while True:
            line = charge(readline(MAX_LINE_BYTES))
            if not line:
                return
            number += 1
            if len(line) == MAX_LINE_BYTES and not line.endswith(b"\n"):
                while (rest := charge(readline(1 << 20))) and not rest.endswith(b"\n"):
                    pass
                if self._notes is not None:
                    self._notes.note(CUT_LINE, f"{self._name}:{number}")
                line += b"\n"
            yield line

    def blocks(self) -> Iterator[bytes]:
        """The log in blocks of whole lines (the last may lack its newline), each line bounded as iterating gives
        it: a reader visits runs of lines at C speed. A gzip is read a buffer at a time, as iterating it reads it,
        so that one cut short loses no more of its last lines than iterating it would. A bound met (the text read,
        the time) ends the blocks there, noted."""
        try:
            yield from self._blocks()
        except _Stop:
            return

    def _blocks(self) -> Iterator[bytes]:
        read, charge = self._stream.read1, self._charge  # type: ignore[attr-defined]  (a BufferedReader or a GzipFile)
        size = io.DEFAULT_BUFFER_SIZE if isinstance(self._stream, gzip.GzipFile) else BLOCK_BYTES
        lines = 0  # before this block, to name a line cut
        while block := charge(read(size)):
            if not block.endswith(b"\n"):
                tail = len(block) - block.rfind(b"\n") - 1  # the start of a line the read cut
                try:
                    rest = charge(self._stream.readline(MAX_LINE_BYTES - tail))
                except EOFError:  # a gzip cut short: the whole lines before the cut one are still read
                    if len(block) > tail:
                        yield block[:len(block) - tail]
                    raise
                block += rest
                if tail + len(rest) == MAX_LINE_BYTES and not rest.endswith(b"\n"):
                    while (more := charge(self._stream.readline(1 << 20))) and not more.endswith(b"\n"):
                        pass
                    cut = lines + block.count(b"\n") + 1
                    if self._notes is not None:
                        self._notes.note(CUT_LINE, f"{self._name}:{cut}")
                    block += b"\n"
            lines += block.count(b"\n")
            yield block

    def head(self, size: int) -> bytes:
        """The log's first ``size`` bytes of text (fewer where it is shorter, or a bound stops it first)."""
        try:
            return self._charge(self._stream.read(size))
        except _Stop:
            return b""

    def readline(self, limit: int = -1) -> bytes:
        return self._stream.readline(min(limit, MAX_LINE_BYTES) if limit >= 0 else MAX_LINE_BYTES)


def open_log(path: Path, notes: Notes | None = None) -> LogLines:
    """A log's lines, gunzipped when its first bytes say gzip (whatever its name: a log renamed either way is read,
    a ``.gz`` that is not gzip noted); raises ReadError (an OSError) for anything but a regular file."""
    raw = open_input(path, "log")
    try:
        stream: BinaryIO = raw
        if raw.peek(2)[:2] == GZIP_MAGIC:  # type: ignore[attr-defined]  (a BufferedReader)
            stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
        elif path.name.endswith(".gz") and notes is not None:
            notes.note(NOT_GZIP, path.name)
        if stream.peek(3)[:3] == BOM:  # type: ignore[attr-defined]
            stream.read(3)
    except BaseException:
        raw.close()
        raise
    return LogLines(stream, raw, path.name, notes)
