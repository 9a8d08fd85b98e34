"""Torch's profiler lines (``USDT: … profiler_start``/``profiler_stop``) kept out of the traced script's stderr.

Kineto's C++ writes them straight to file descriptor 2 (SyncActivityProfilerHandler.cpp), so for the run under
``--profile`` fd 2 goes through a pipe to a small filter process that drops exactly those lines and passes every
other byte through unchanged, as it comes (a partial line is not held back unless it could be one of them). A
process, not a thread: whatever the script writes before an ``os._exit`` still reaches the terminal."""

from __future__ import annotations

import os
import subprocess
import sys

# Run with ``python -c``: the filter imports nothing of this package, wherever the package is installed.
FILTER = r"""
import os, re
noise = re.compile(rb"USDT:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \d+:\d+ [\w.]+:\d+\] profiler_(?:start|stop)\r?\n")
start, pending = True, b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    data, pending, out = pending + chunk, b"", []
    while data:
        if start and b"USDT:".startswith(data[:5]):
            end = data.find(b"\n")
            if end < 0:
                pending = data  # could be one of them: wait for the rest of the line
                break
            line, data = data[:end + 1], data[end + 1:]
            if not noise.fullmatch(line):
                out.append(line)
            continue
        end = data.find(b"\n")
        if end < 0:
            out.append(data)
            data, start = b"", False
        else:
            out.append(data[:end + 1])
            data, start = data[end + 1:], True
    if out:
        os.write(1, b"".join(out))
if pending:
    os.write(1, pending)
"""


class ProfilerNoiseFiltered:
    """A context: fd 2 through FILTER while it is open (``stop`` ends it early, e.g. before an ``os._exit``)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._saved: int | None = None
        self._filter: subprocess.Popen | None = None

    def __enter__(self) -> ProfilerNoiseFiltered:
        self.start()
        return self

    def start(self) -> None:
        """fd 2 into the filter (when enabled; a second start does nothing)."""
        if not self.enabled or self._saved is not None:
            return
        sys.stderr.flush()
        saved = os.dup(2)
        read, write = os.pipe()
        try:
            self._filter = subprocess.Popen([sys.executable, "-c", FILTER], stdin=read, stdout=saved, close_fds=True)
        except OSError:  # no filter: the lines show, the run goes on
            os.close(saved)
            os.close(write)
            return
        finally:
            os.close(read)
        os.dup2(write, 2)
        os.close(write)
        self._saved = saved

    def stop(self) -> None:
        """fd 2 back to where it was; waits (briefly) for the filter to pass on what it holds."""
        if self._saved is None:
            return
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._saved = None
        try:
            self._filter.wait(timeout=5)  # a child process of the script that still holds the pipe: let it be
        except subprocess.TimeoutExpired:
            pass

    def __exit__(self, *exc: object) -> None:
        self.stop()
