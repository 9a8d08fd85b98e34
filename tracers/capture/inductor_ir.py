"""Inductor's IR before and after fusion, taken from torch's own ``ir_pre_fusion``/``ir_post_fusion`` logs."""

from __future__ import annotations

import logging
from collections.abc import Callable

from tracers.tracefile.events import Trace

from .recorder import Recorder

# torch names these artifact loggers ``<module>.__<artifact>`` (torch._logging.getArtifactLogger).
LOGGERS = {
    "ir_pre_fusion": "torch._inductor.debug.__ir_pre_fusion",
    "ir_post_fusion": "torch._inductor.debug.__ir_post_fusion",
}


class InductorIRCollector(logging.Handler):
    """Turns the two IR logs on for the run, for this handler alone (no console output), and files each
    record as an ``ir`` artifact. Off by default: printing the IR costs compile time. A session's collector
    (capture/collector.py)."""

    what = "Inductor's IR logs"

    def __init__(self, recorder: Recorder, compile_id: Callable[[], str | None]):
        super().__init__(level=logging.INFO)
        self.recorder = recorder
        self._compile_id = compile_id
        self._saved: dict[str, tuple[int, bool]] = {}

    def handleError(self, record: logging.LogRecord) -> None:
        pass  # a record we cannot format is lost; the traced program must not notice

    def emit(self, record: logging.LogRecord) -> None:
        if not self.recorder.active:
            return
        text = record.getMessage()
        name = next((artifact for artifact, logger in LOGGERS.items() if logger == record.name), record.name)
        self.recorder.add_artifact("ir", name, self._compile_id(), {}, text, len(text))

    def start(self) -> None:
        for qualified in LOGGERS.values():
            logger = logging.getLogger(qualified)
            self._saved[qualified] = (logger.level, logger.propagate)
            logger.setLevel(logging.INFO)
            logger.propagate = False  # ours only: torch's console handlers sit on the parents
            logger.addHandler(self)

    def stop(self) -> None:
        for qualified, (level, propagate) in self._saved.items():
            logger = logging.getLogger(qualified)
            if self in logger.handlers:
                logger.removeHandler(self)
            logger.setLevel(level)
            logger.propagate = propagate
        self._saved.clear()

    def contribute(self, trace: Trace) -> None:
        pass  # its records are the recorder's artifacts
