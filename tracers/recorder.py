"""Collects spans and artifacts as they happen, with one call stack per thread."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from .events import Artifact, Span
from .stages import Target

Listener = Callable[[str, Span], None]
# Called with a hooked call's positional arguments and its result, to file what it decided.
ResultObserver = Callable[["Recorder", tuple[Any, ...], Any], None]


def describe_frame(args: tuple[Any, ...]) -> str | None:
    """The user code a compile step works on, if one of its first arguments is a frame or code object."""
    for arg in args[:3]:
        code = getattr(arg, "f_code", None) or (arg if hasattr(arg, "co_firstlineno") else None)
        if code is not None:
            filename = code.co_filename.rsplit("/", 1)[-1]
            return f"{code.co_name} ({filename}:{code.co_firstlineno})"
    return None


class Recorder:
    """Receives enter/exit calls from the hook wrappers. Thread-safe: each thread has its own stack."""

    def __init__(self, compile_id: Callable[[], str | None] = lambda: None):
        self._compile_id = compile_id
        self._local = threading.local()
        self._ids = itertools.count(1)
        self._artifact_ids = itertools.count(1)
        self._open: dict[int, Span] = {}
        self.spans: list[Span] = []
        self.artifacts: list[Artifact] = []
        self.listeners: list[Listener] = []
        self.result_observers: dict[str, ResultObserver] = {}
        self.active = True

    def _stack(self) -> list[Span]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def current_span(self) -> Span | None:
        stack = self._stack()
        return stack[-1] if stack else None

    def enter(self, target: Target, args: tuple[Any, ...]) -> Span:
        stack = self._stack()
        parent = stack[-1] if stack else None
        thread = threading.current_thread()
        span = Span(
            id=next(self._ids),
            parent=parent.id if parent else None,
            target=target.name,
            stage=target.stage,
            thread_id=thread.ident or 0,
            thread_name=thread.name,
            depth=len(stack),
            start_ns=time.perf_counter_ns(),
            compile_id=self._compile_id(),
            frame=describe_frame(args) or (parent.frame if parent else None),
        )
        stack.append(span)
        self._open[span.id] = span
        self.spans.append(span)
        for listener in self.listeners:
            listener("enter", span)
        return span

    def exit(self, span: Span, error: BaseException | None) -> None:
        span.end_ns = time.perf_counter_ns()
        if error is not None:
            span.error = type(error).__name__
        if span.compile_id is None:
            span.compile_id = self._compile_id()
        if span.compile_id and span.parent is not None:
            # Dynamo opens the compile context inside _compile, so the outer steps learn their
            # compile id from the first step beneath them that ran inside it.
            parent = self._open.get(span.parent)
            if parent is not None and parent.compile_id is None:
                parent.compile_id = span.compile_id
        stack = self._stack()
        if stack and stack[-1] is span:
            stack.pop()
        elif span in stack:  # an inner span was never closed (cannot happen with our wrappers)
            del stack[stack.index(span):]
        self._open.pop(span.id, None)
        for listener in self.listeners:
            listener("exit", span)

    def observe(self, target_name: str, args: tuple[Any, ...], result: Any) -> None:
        observer = self.result_observers.get(target_name)
        if observer is None:
            return
        try:
            observer(self, args, result)
        except Exception:  # noqa: BLE001 - a torch release we do not know must not break the traced program
            pass

    def add_artifact(self, kind: str, name: str, compile_id: str | None, metadata: dict[str, Any],
                     payload: str | None, payload_size: int) -> Artifact:
        span = self.current_span()
        artifact = Artifact(
            id=next(self._artifact_ids),
            kind=kind,
            name=name,
            compile_id=compile_id or (span.compile_id if span else None),
            span=span.id if span else None,
            thread_id=threading.get_ident(),
            ts_ns=time.perf_counter_ns(),
            metadata=metadata,
            payload=payload,
            payload_size=payload_size,
        )
        self.artifacts.append(artifact)
        return artifact

    def close_open_spans(self) -> int:
        """Ends every span still open (the run was cut short); returns how many there were."""
        now = time.perf_counter_ns()
        open_spans = list(self._open.values())
        for span in open_spans:
            span.end_ns = now
            span.unfinished = True
        self._open.clear()
        return len(open_spans)
