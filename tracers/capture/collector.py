"""What every part of a tracing session is to it: started, stopped in reverse, then added to the trace."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tracers.tracefile.events import Trace

from .recorder import Recorder

if TYPE_CHECKING:  # annotations only: the structured-trace handler is the session's to build
    from .artifacts import ArtifactCollector

Warnings = list[str] | None  # what could not be done, said in the trace; None: nothing to say


@runtime_checkable
class Collector(Protocol):
    """``TraceSession`` starts its collectors in its stated order and stops them in reverse. A raise in either
    becomes a warning naming ``what``; a collector whose start failed half way is stopped all the same, so
    whatever it did patch is undone. Once all have stopped, each contributes, in stop order."""

    what: str  # as warnings name it: "executed lines could not be stopped cleanly: …"

    def start(self) -> Warnings: ...

    def stop(self) -> Warnings: ...

    def contribute(self, trace: Trace) -> None: ...


class ResultObserver:
    """A module that reads what a hooked call decided from its arguments and result (``autotune``,
    ``cudagraph_skips``): registered with the recorder at start; nothing to undo, the hooks go with the session."""

    def __init__(self, what: str, install: Callable[[Recorder], None], recorder: Recorder):
        self.what, self._install, self.recorder = what, install, recorder

    def start(self) -> Warnings:
        self._install(self.recorder)
        return None

    def stop(self) -> Warnings:
        return None

    def contribute(self, trace: Trace) -> None:
        pass


class Recording:
    """The recorder's switch: off at stop, so nothing the other collectors' undoing calls is recorded; its
    contribution closes the spans a run left open (an exception unwinding, Ctrl-C, os._exit)."""

    what = "the recorder"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def start(self) -> Warnings:
        self.recorder.active = True
        return None

    def stop(self) -> Warnings:
        self.recorder.active = False
        return None

    def contribute(self, trace: Trace) -> None:
        if self.recorder.close_open_spans():
            trace.info.warnings.append("some compile steps were still running when the run ended")
        trace.info.resets = self.recorder.identity.resets


class StructuredTrace:
    """torch's structured trace (``ArtifactCollector``, a logging handler) as a collector."""

    what = "torch's structured trace"

    def __init__(self, collector: ArtifactCollector):
        self.collector = collector

    def start(self) -> Warnings:
        self.collector.attach()
        return None

    def stop(self) -> Warnings:
        return self.collector.detach()

    def contribute(self, trace: Trace) -> None:
        trace.info.dropped_records = dict(sorted(self.collector.dropped.items()))
