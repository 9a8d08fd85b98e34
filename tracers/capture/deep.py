"""Deep mode: a function-level trace of the whole run through viztracer's public API, bounded in size."""

from __future__ import annotations

import json
import os
import tempfile
import time
from typing import Any

from tracers.tracefile.events import DeepEvent, Trace


class DeepUnavailable(Exception):
    """viztracer is not installed; the message says how to get it."""


class DeepTracer:
    """Starts viztracer beside our hooks and returns its calls on our clock when stopped.

    Bounded: C functions are left out, calls shorter than ``min_duration_us``
    are dropped, and the ring buffer holds at most ``max_entries`` calls (the oldest are overwritten).
    """

    def __init__(self, min_duration_us: float = 100.0, max_entries: int = 2_000_000):
        try:
            from viztracer import VizTracer
        except ImportError:
            raise DeepUnavailable("--deep needs viztracer: pip install viztracer") from None
        self.min_duration_us = min_duration_us
        self._tracer = VizTracer(
            # Not ignore_frozen: viztracer then drops everything called from a frozen frame too, and
            # the script itself runs under <frozen runpy>.
            tracer_entries=max_entries, min_duration=min_duration_us, ignore_c_function=True,
            verbose=0, register_global=False, file_info=False,
        )
        self._offset_ns = 0

    def start(self) -> None:
        self._tracer.start()
        # viztracer stamps events with its own clock (µs); one paired reading maps it onto ours.
        self._offset_ns = time.perf_counter_ns() - int(self._tracer.getts() * 1000)

    def stop(self) -> list[DeepEvent]:
        self._tracer.stop()
        self._tracer.parse()
        handle, path = tempfile.mkstemp(suffix=".json", prefix="tracers-deep-")
        os.close(handle)
        try:
            self._tracer.save(path, verbose=0)
            with open(path, encoding="utf-8") as stream:
                raw: dict[str, Any] = json.load(stream)
        finally:
            os.unlink(path)
            self._tracer.clear()
        events = []
        for event in raw.get("traceEvents", []):
            if event.get("ph") != "X":
                continue
            events.append(DeepEvent(
                name=str(event.get("name", "?")),
                thread_id=int(event.get("tid", 0)),
                start_ns=int(event["ts"] * 1000) + self._offset_ns,
                duration_ns=int(event.get("dur", 0) * 1000),
            ))
        return events


class DeepMode:
    """A ``DeepTracer`` as a session's collector (capture/collector.py): its calls join the trace once it stops."""

    what = "deep mode"

    def __init__(self, tracer: DeepTracer):
        self.tracer = tracer
        self.events: list[DeepEvent] = []

    def start(self) -> None:
        self.tracer.start()

    def stop(self) -> None:
        self.events = self.tracer.stop()

    def contribute(self, trace: Trace) -> None:
        trace.info.deep_min_duration_us = self.tracer.min_duration_us
        trace.deep_events = self.events


def deep_tracer(min_duration_us: float | None) -> DeepTracer | None:
    """Deep mode when asked for (a minimum call time), else None; raises DeepUnavailable without viztracer."""
    return None if min_duration_us is None else DeepTracer(min_duration_us=min_duration_us)
