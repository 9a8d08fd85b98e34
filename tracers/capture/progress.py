"""A one-line live status on the terminal while torch.compile works, cleared when each compile ends."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tracers.tracefile.events import Span
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.progress import ProgressLine

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Progress:
    """Recorder listener. Draws only on a terminal, at most ten times a second, and never between compiles,
    so the script's own output is not mixed with ours."""

    def __init__(self, stream: TextIO = sys.stderr, interval_s: float = 0.1):
        self.line = ProgressLine(stream)
        self.enabled = self.line.live  # the trace command turns it off where another process leads the terminal
        self.interval_s = interval_s
        self._last_draw = 0.0
        self._started: dict[int, float] = {}  # root span id -> wall start
        self._frames = 0

    def __call__(self, event: str, span: Span) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if span.depth == 0:
            if event == "enter":
                self._started[span.id] = now
            else:
                self._started.pop(span.id, None)
                if not self._started:
                    self.clear()
                return
        if event != "enter" or now - self._last_draw < self.interval_s or not self._started:
            return
        self._last_draw = now
        elapsed = now - min(self._started.values())
        title = STAGE_BY_ID[span.stage].title if span.stage in STAGE_BY_ID else span.stage
        compile_id = f"{span.compile_id} " if span.compile_id else ""
        frame = span.frame or ""
        self._frames += 1
        text = f"{_SPINNER[self._frames % len(_SPINNER)]} compiling {compile_id}{frame} — {title} ({elapsed:.1f} s)"
        self.line.draw(text[:120])

    def clear(self) -> None:
        self.line.clear()
