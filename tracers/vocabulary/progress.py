"""The one progress line: redrawn in place on a terminal while work runs, then closed with its outcome."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TextIO

WIPE = "\r\033[2K"  # back to the line's start and erase it, so the next text replaces the last


class ProgressLine:
    """A step's line, ``[2/7] label … 12 s`` counted each second on a terminal and closed as ``[2/7] label … ok``;
    off a terminal (a pipe, a log) ``label …`` once and the outcome when it comes, one line per step.
    ``draw`` and ``clear`` show free text in its place, on a terminal only (the trace command's spinner)."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self.label = ""
        self.started = time.monotonic()
        self._shown = False
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def draw(self, text: str) -> None:
        if self.live:
            self._write(WIPE + text)
            self._shown = True

    def clear(self) -> None:
        """Wipe what ``draw`` left, so the program's own output starts on a clean line."""
        if self._shown:
            self._write(WIPE)
            self._shown = False

    def start(self, label: str) -> None:
        self.label, self.started = label, time.monotonic()
        if not self.live:
            self._write(f"{label} …")
            return
        self._stop.clear()
        self._ticker = threading.Thread(target=self._tick, daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        while True:
            self.draw(f"{self.label} … {self.elapsed_s:.0f} s")
            if self._stop.wait(1.0):
                return

    def pause(self) -> None:
        """Stop counting; the line is left as ``label …``, waiting for its outcome."""
        if self._ticker is None:
            return
        self._stop.set()
        self._ticker.join()
        self._ticker = None
        self._write(f"{WIPE}{self.label} …")

    @contextlib.contextmanager
    def counting(self, label: str) -> Iterator[ProgressLine]:
        """``start`` on entry, ``pause`` on exit however the block ends; ``finish`` comes after."""
        self.start(label)
        try:
            yield self
        finally:
            self.pause()

    def finish(self, outcome: str) -> None:
        self.pause()
        self._write(f" {outcome}\n")
        self._shown = False

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
