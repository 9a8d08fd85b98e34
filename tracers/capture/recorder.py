"""Collects spans and artifacts as they happen, with one call stack per thread."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from tracers.tracefile.compile_identity import RESET_TARGET, CompileIdentity
from tracers.tracefile.events import Artifact, Span
from tracers.tracefile.stages import Target

Listener = Callable[[str, Span], None]
# Called with a hooked call's positional arguments and its result, to file what it decided.
ResultObserver = Callable[["Recorder", tuple[Any, ...], Any], None]
ArgumentObserver = Callable[["Recorder", tuple[Any, ...]], None]
# An argument observer that also reads the call's keyword arguments (torch.compile's dynamic=, fullgraph=) says so
# with this attribute set; it is then called with them as a third argument.
TAKES_KEYWORDS = "__tracers_keywords__"


def describe_frame(args: tuple[Any, ...]) -> str | None:
    """The user code a compile step works on, if one of its first arguments is a frame or code object.

    When the frame is a pass-through wrapper (torch's ``inner`` around an ``nn.Module``, a library's
    decorator), the wrapped model or function is named first and the wrapper after it.
    """
    for arg in args[:3]:
        code = getattr(arg, "f_code", None) or (arg if hasattr(arg, "co_firstlineno") else None)
        if code is not None:
            where = _code_label(_qualname(code), code)
            wrapped = _wrapped_callable(code, getattr(arg, "closure", None))
            return f"{wrapped} via {where}" if wrapped else where
    return None


def _qualname(code: Any) -> str:
    """``Class.method`` where Python knows it (3.11+), without the ``outer.<locals>.`` of nested definitions."""
    return getattr(code, "co_qualname", code.co_name).rsplit("<locals>.", 1)[-1]


def _code_label(name: str, code: Any) -> str:
    return f"{name} ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})"


_VARARGS_AND_KEYWORDS = 0x04 | 0x08  # CO_VARARGS | CO_VARKEYWORDS: ``def wrapper(*args, **kwargs)``
_MAX_WRAPPERS = 8  # decorators stacked deeper than this are not followed (a closure cycle cannot loop)


def _wrapped_callable(code: Any, closure: tuple[Any, ...] | None, depth: int = 0) -> str | None:
    """``Model.forward (file:line)`` when ``code`` only passes its arguments on to a function or module it
    closes over; the frame being compiled is then the wrapper, and what the user wrote is inside it.

    Libraries stack such decorators (transformers puts ``can_return_tuple`` over ``deprecate_kwarg`` over
    a model's ``forward``), so the chain is followed to the innermost function that is not itself one.
    """
    if depth > _MAX_WRAPPERS or not closure or code.co_flags & _VARARGS_AND_KEYWORDS != _VARARGS_AND_KEYWORDS:
        return None
    for cell in closure:
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        forward = getattr(type(value), "forward", None)
        if forward is not None and hasattr(value, "_modules"):  # an nn.Module: what it runs is forward
            inner = getattr(forward, "__code__", None)
            if inner is not None:
                return (_wrapped_callable(inner, forward.__closure__, depth + 1)
                        or _code_label(f"{type(value).__qualname__}.forward", inner))
        function = getattr(value, "__func__", value)  # a bound method's function
        inner = getattr(function, "__code__", None)
        if inner is not None and inner is not code:
            return (_wrapped_callable(inner, getattr(function, "__closure__", None), depth + 1)
                    or _code_label(_function_name(function, inner), inner))
    return None


def _function_name(function: Any, code: Any) -> str:
    """A function's ``Class.method``. Code made from a string (a dataclass's ``__init__``, a namedtuple's
    ``__new__``) knows only the function's bare name; the function itself was given its class's name."""
    named = getattr(function, "__qualname__", None)
    if code.co_filename == "<string>" and isinstance(named, str):
        return named.rsplit("<locals>.", 1)[-1]
    return _qualname(code)


class Recorder:
    """Receives enter/exit calls from the hook wrappers. Thread-safe: each thread has its own stack."""

    def __init__(self, compile_id: Callable[[], str | None] = lambda: None):
        self._torch_compile_id = compile_id  # torch's own id of the compile running now, if any
        self.identity = CompileIdentity()
        self._local = threading.local()
        self._ids = itertools.count(1)
        self._artifact_ids = itertools.count(1)
        self._open: dict[int, Span] = {}
        self.spans: list[Span] = []
        self.artifacts: list[Artifact] = []
        self.listeners: list[Listener] = []
        self.result_observers: dict[str, ResultObserver] = {}
        self.argument_observers: dict[str, ArgumentObserver] = {}  # told of a call's arguments as its span opens
        self.active = True

    def _stack(self) -> list[Span]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def current_span(self) -> Span | None:
        stack = self._stack()
        return stack[-1] if stack else None

    def open_span(self, span_id: int) -> Span | None:
        """A span still running (an observer reads which step encloses the call it observes)."""
        return self._open.get(span_id)

    def enter(self, target: Target, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Span:
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
            compile_id=self._compile_id(target.stage),
            frame=describe_frame(args) or (parent.frame if parent else None),
        )
        stack.append(span)
        self._open[span.id] = span
        self.spans.append(span)
        for listener in self.listeners:
            listener("enter", span)
        observer = self.argument_observers.get(target.name)
        if observer is not None:
            try:
                if getattr(observer, TAKES_KEYWORDS, False):
                    observer(self, args, kwargs or {})  # type: ignore[call-arg]
                else:
                    observer(self, args)
            except Exception:  # noqa: BLE001 - a torch release we do not know must not break the traced program
                pass
        return span

    def exit(self, span: Span, error: BaseException | None) -> None:
        span.end_ns = time.perf_counter_ns()
        if error is not None:
            span.error = type(error).__name__
        if span.compile_id is None:
            span.compile_id = self._compile_id(span.stage)
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
        if span.target == RESET_TARGET:
            self.identity.note_reset()
        for listener in self.listeners:
            listener("exit", span)

    def _compile_id(self, stage: str | None) -> str | None:
        return self.identity.qualify(self._torch_compile_id(), stage)

    def observe(self, target_name: str, args: tuple[Any, ...], result: Any) -> None:
        observer = self.result_observers.get(target_name)
        if observer is None:
            return
        try:
            observer(self, args, result)
        except Exception:  # noqa: BLE001 - a torch release we do not know must not break the traced program
            pass

    def add_artifact(self, kind: str, name: str, torch_compile_id: str | None, metadata: dict[str, Any],
                     payload: str | None, payload_size: int) -> Artifact:
        """File one record; ``torch_compile_id`` is torch's own id of the compile that emitted it, if known."""
        span = self.current_span()
        compile_id = self.identity.qualify(torch_compile_id, span.stage if span else None)
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
