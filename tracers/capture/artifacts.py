"""Receives torch's own structured trace in-process (what TORCH_TRACE and tlparse read) and files the kept records."""

from __future__ import annotations

import logging
import sys
from collections import Counter

from tracers.tracefile.torch_records import RecordTranslator, keeps

from .call_sites import forget, passed_arguments
from .hint_names import wrong_names
from .record_filter import RecordFilter
from .recorder import Recorder

class ArtifactCollector(logging.Handler):
    """A logging handler on torch's ``torch.__trace`` logger that files records with the recorder."""

    def __init__(self, recorder: Recorder, keep_code: bool = True):
        super().__init__(level=logging.DEBUG)
        self.recorder = recorder
        self.keep_code = keep_code
        self.dropped: Counter[str] = Counter()
        self._translator = RecordTranslator(keep_code, self.dropped, hint_check=wrong_names)
        self._logger: logging.Logger | None = None
        self._old_level = logging.NOTSET
        self._router: _NotToCapture | None = None
        self._filter = RecordFilter(keeps, self.dropped, self._alone)  # records we would drop are never built

    # Our own bookkeeping must never break the traced program: swallow our errors, count them.
    def handleError(self, record: logging.LogRecord) -> None:
        self.dropped["<tracer error>"] += 1

    def emit(self, record: logging.LogRecord) -> None:
        if not self.recorder.active:
            return
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        found = self._translator.translate(metadata, getattr(record, "payload", None))
        if found is not None and found.kind == "frame":
            # Only live, while the caller's frame is on the stack: what its call passed, by parameter.
            passed = passed_arguments(self._translator.resolved_stack(metadata))
            if passed:
                found.details["passed"] = passed
        if found is not None:
            self.recorder.add_artifact(found.kind, found.name, found.torch_compile_id, found.details,
                                       found.payload, found.payload_size)

    def _alone(self) -> bool:
        """No other handler would receive torch's records (torch's TORCH_TRACE handler unused, a test runner's kept
        from them, nothing else)."""
        logger = self._logger
        return logger is not None and all(isinstance(handler, ArtifactCollector) or _idle_trace_handler(handler)
                                          or _captures(handler) for handler in logger.handlers)

    # -- attach / detach ------------------------------------------------------------------
    def attach(self) -> None:
        from torch._logging._internal import trace_log

        # A name interned during an earlier traced block of this process (or before) is never sent again.
        interned = getattr(sys.modules.get("torch._logging.structured"), "INTERN_TABLE", None)
        if isinstance(interned, dict):
            self._translator.know_strings(dict(interned))
        self._logger = trace_log
        self._old_level = trace_log.level
        self._router = _NotToCapture()
        trace_log.addFilter(self._router)
        trace_log.setLevel(logging.DEBUG)
        trace_log.addHandler(self)
        self._filter.install()

    def detach(self) -> list[str]:
        warnings = []
        logger, self._logger = self._logger, None
        if logger is None:
            return warnings
        self._filter.uninstall()
        forget()
        if self in logger.handlers:
            logger.removeHandler(self)
        else:
            warnings.append("the script reset torch's logging during the run; later artifacts were not recorded")
        logger.setLevel(self._old_level)
        if self._router is not None:
            logger.removeFilter(self._router)
            self._router = None
        return warnings


class _NotToCapture(logging.Filter):
    """On torch's trace logger while traced: each record goes to its handlers as logging would send it, less a test
    runner's captured-log handlers (pytest adds its own to every logger that does not propagate, and torch logs
    its records to whatever handler is there: a failing test's log filled with empty DEBUG lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        logger = logging.getLogger(record.name)
        if not any(_captures(handler) for handler in logger.handlers):
            return True
        for handler in logger.handlers:
            if not _captures(handler) and record.levelno >= handler.level:
                handler.handle(record)
        return False


def _captures(handler: logging.Handler) -> bool:
    """A test runner's own handler (pytest's captured log, live log, log file)."""
    return type(handler).__module__ == "_pytest.logging"


def _idle_trace_handler(handler: logging.Handler) -> bool:
    """torch's own TORCH_TRACE handler when TORCH_TRACE is not set: it writes nothing (and removes itself
    at its first record)."""
    return (type(handler).__name__ == "LazyTraceHandler" and getattr(handler, "root_dir", None) is None
            and not getattr(handler, "stream", None))


