"""Executed lines: how often each line ran, counted only inside the watched torch functions."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from tracers.tracefile.events import Trace

from .dynamo_shield import shield


@dataclass(frozen=True)
class Watch:
    """A source span to count lines in: every code object that starts inside it (nested ones too)."""

    path: str  # inside the torch tree, e.g. torch/_dynamo/convert_frame.py
    start: int
    end: int


def torch_relative(filename: str) -> str | None:
    """``/…/site-packages/torch/_dynamo/x.py`` -> ``torch/_dynamo/x.py``; None outside torch."""
    marker = "/torch/"
    index = filename.rfind(marker)
    while index != -1:
        candidate = filename[index + 1:]
        if candidate.startswith("torch/"):
            return candidate
        index = filename.rfind(marker, 0, index)
    return None



def watch_for(function: Callable[..., Any]) -> Watch | None:
    """The span of a live function, from its code object: first line to the last line it covers.

    Decorators that keep ``__wrapped__`` are looked through: the body is what an excerpt shows."""
    import inspect

    try:
        function = inspect.unwrap(function)
    except ValueError:  # a __wrapped__ cycle: keep the outermost
        pass
    code = getattr(function, "__code__", None)
    path = torch_relative(code.co_filename) if code else None
    if code is None or path is None:
        return None
    lines = [line for _, _, line in code.co_lines() if line is not None]
    return Watch(path, code.co_firstlineno, max(lines, default=code.co_firstlineno))


class LineCounter:
    """Counts line events in watched code only. Python 3.12+ uses sys.monitoring (other code is
    switched off after its first call, so it costs nearly nothing); 3.11 uses a settrace hook that
    declines every unwatched frame at its call event."""

    def __init__(self, watches: Iterable[Watch] = ()):
        self._watches: dict[str, list[tuple[int, int]]] = {}
        self._decided: dict[CodeType, str | None] = {}
        # A plain dict, not a Counter: Counter.__missing__ is Python code, and any Python frame run from
        # a line callback is one more frame Dynamo's hook sees.
        self.counts: dict[tuple[str, int], int] = {}
        self._tool: int | None = None
        self._previous_trace: Any = None
        self._running = False
        self.refused: str | None = None  # why counting could not start, if it could not
        for watch in watches:
            self.add(watch)

    def add(self, watch: Watch) -> None:
        # The line callbacks run as Python frames inside the very calls Dynamo is compiling;
        # without this, Dynamo's frame hook hands each of them to convert_frame as user code.
        shield(sys.modules[__name__])
        self._watches.setdefault(watch.path, []).append((watch.start, watch.end))
        if self._decided:
            # Code seen before this watch existed was declined; let it be decided again.
            self._decided = {code: path for code, path in list(self._decided.items()) if path is not None}
            if self._tool is not None:
                sys.monitoring.restart_events()

    def _path_of(self, code: CodeType) -> str | None:
        try:
            return self._decided[code]
        except KeyError:
            pass
        path = torch_relative(code.co_filename)
        spans = self._watches.get(path) if path else None
        first = code.co_firstlineno
        decided = path if spans and any(start <= first <= end for start, end in spans) else None
        self._decided[code] = decided
        return decided

    # -- start / stop ---------------------------------------------------------------------
    def start(self) -> bool:
        shield(sys.modules[__name__])
        if hasattr(sys, "monitoring"):
            return self._start_monitoring()
        if sys.gettrace() is not None:
            self.refused = "another tracer (a debugger or coverage) is active"
            return False
        self._previous_trace = threading.gettrace() if hasattr(threading, "gettrace") else None
        threading.settrace(self._on_call)
        sys.settrace(self._on_call)
        self._running = True
        return True

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        if self._tool is not None:
            monitoring = sys.monitoring
            monitoring.set_events(self._tool, 0)
            for code, path in self._decided.items():
                if path is not None:
                    monitoring.set_local_events(self._tool, code, 0)
            monitoring.register_callback(self._tool, monitoring.events.PY_START, None)
            monitoring.register_callback(self._tool, monitoring.events.LINE, None)
            monitoring.free_tool_id(self._tool)
            self._tool = None
            return
        sys.settrace(None)
        threading.settrace(self._previous_trace)

    # -- Python 3.11: settrace --------------------------------------------------------------
    def _on_call(self, frame: FrameType, event: str, arg: Any) -> Any:
        path = self._path_of(frame.f_code)
        if path is None:
            return None
        counts = self.counts

        def on_line(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                key = (path, frame.f_lineno)
                counts[key] = counts.get(key, 0) + 1
            return on_line

        return on_line

    # -- Python 3.12+: sys.monitoring ---------------------------------------------------------
    def _start_monitoring(self) -> bool:
        monitoring = sys.monitoring
        # Ids 3 and 4 have no assigned role; 2 (PROFILER_ID) is what viztracer takes in deep mode.
        for tool in (3, 4, monitoring.PROFILER_ID):
            if monitoring.get_tool(tool) is None:
                monitoring.use_tool_id(tool, "torch-compile-walkthrough lines")
                self._tool = tool
                break
        else:
            self.refused = "no free sys.monitoring tool id"
            return False
        events = monitoring.events
        disable = monitoring.DISABLE

        def on_start(code: CodeType, offset: int) -> Any:
            if self._path_of(code) is not None:
                monitoring.set_local_events(self._tool, code, events.LINE)
            return disable

        def on_line(code: CodeType, line: int) -> Any:
            path = self._decided.get(code)
            if path is not None:
                key = (path, line)
                self.counts[key] = self.counts.get(key, 0) + 1
            return None

        monitoring.register_callback(self._tool, events.PY_START, on_start)
        monitoring.register_callback(self._tool, events.LINE, on_line)
        monitoring.set_events(self._tool, events.PY_START)
        self._running = True
        return True

    def result(self) -> dict[str, dict[int, int]]:
        """path -> {line: times it ran}, lines in order."""
        table: dict[str, dict[int, int]] = {}
        for (path, line), count in sorted(self.counts.items()):
            table.setdefault(path, {})[line] = count
        return table


class ExecutedLines:
    """A ``LineCounter`` as a session's collector (capture/collector.py); the counter's own ``start`` says
    whether counting could start at all, which the trace records."""

    what = "executed lines"

    def __init__(self, counter: LineCounter):
        self.counter = counter
        self.recorded = False

    def start(self) -> list[str]:
        self.recorded = self.counter.start()
        return [] if self.recorded else [f"executed lines not recorded: {self.counter.refused}"]

    def stop(self) -> None:
        self.counter.stop()

    def contribute(self, trace: Trace) -> None:
        trace.info.lines_recorded = self.recorded
        trace.executed_lines = self.counter.result()


def watches_from_lock(path: str, torch_version: str) -> tuple[list[Watch], str | None]:
    """Spans of the walkthrough's locked symbols and excerpts, if the lock was written for this torch.

    Returns the watches and, when they cannot be used, why (a line for the trace's warnings)."""
    import json

    try:
        with open(path, encoding="utf-8") as stream:
            lock = json.load(stream)
    except (OSError, ValueError) as error:
        return [], f"lock {path} unreadable: {error}"
    locked = str(lock.get("torch_version", "")).split("+")[0]
    if locked != torch_version.split("+")[0]:
        return [], f"lock {path} is for torch {locked}, not {torch_version}: its line spans do not apply"
    watches = []
    for entry in [*lock.get("symbols", []), *lock.get("excerpts", [])]:
        if isinstance(entry, dict) and {"file", "start", "end"} <= entry.keys():
            watches.append(Watch(str(entry["file"]), int(entry["start"]), int(entry["end"])))
    return watches, None


def line_counter(lock: str | None) -> tuple[LineCounter | None, str | None]:
    """The counter a run asks for: None (no --lines), the hooked functions (""), or also a lock file's spans;
    and a warning when the lock does not fit this torch. Imports torch only for a lock."""
    if lock is None:
        return None, None
    if not lock:
        return LineCounter(), None
    import torch

    watches, warning = watches_from_lock(lock, torch.__version__)
    return LineCounter(watches), warning
