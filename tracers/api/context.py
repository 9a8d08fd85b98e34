"""``tracers.trace``: trace a block of code (``with``) or every call of a function (decorator)."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tracers.capture.runner import outcome_of
from tracers.capture.options import SessionOptions, prepared_session
from tracers.vocabulary.usage import check_writable

from .result import TraceResult

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_NAME = "trace"


class trace:  # noqa: N801 - used like a function: ``with tracers.trace():``, ``@tracers.trace()``
    """Record what ``torch.compile`` does inside a block, on the same session ``python -m tracers trace`` uses.

    ``with tracers.trace() as t: ...`` gives a :class:`TraceResult`; as a decorator, every call of the
    function is traced and the latest result is the wrapper's ``last_trace``. Every patch is undone when
    the block ends, however it ends; exceptions pass through unchanged.

    :param cache: ``"cold"`` (default) turns the FX-graph and AOTAutograd caches off and uses a fresh
        cache dir for the block; ``"warm"`` keeps your caches and records which hit.
    :param device: ``"cuda"`` checks for a GPU and makes it torch's default device inside the block.
    :param no_code: leave generated code out of the trace.
    :param deep: also record every Python call of at least ``deep_min_us`` µs (needs viztracer).
    :param lines: count how often each line ran in the hooked torch functions (``lines_lock``: also
        inside the spans of a walkthrough lock file).
    :param inductor_ir: keep Inductor's IR before and after fusion.
    :param vs_eager: time each call of what ``torch.compile`` returns inside the block (``t.runtime``); the eager
        side needs the script run again with compile off: ``python -m tracers trace --vs-eager``.
    :param profile: a ``torch.profiler`` pass over a few steady-state calls: kernel time by your line.
    :param name: what the trace is called (file names, page title); a decorated function's name by default.
    :param out: a directory: save the trace and its page there when the block ends.
    """

    def __init__(self, *, cache: str = "cold", device: str = "cpu", no_code: bool = False, deep: bool = False,
                 deep_min_us: float = 100.0, lines: bool = False, lines_lock: str | None = None,
                 inductor_ir: bool = False, vs_eager: bool = False, profile: bool = False, name: str | None = None,
                 out: str | Path | None = None):
        self._configure(SessionOptions.from_flags(device=device, cache=cache, keep_code=not no_code, deep=deep,
                                              deep_min_us=deep_min_us, lines=lines, lines_lock=lines_lock,
                                              inductor_ir=inductor_ir, vs_eager=vs_eager, profile=profile), name, out)

    @classmethod
    def with_options(cls, options: SessionOptions, *, name: str | None = None, out: str | Path | None = None) -> trace:
        """A block with the tracer's options already gathered (``%%trace`` parses the command line's flags)."""
        block = object.__new__(cls)
        block._configure(options, name, out)
        return block

    def _configure(self, options: SessionOptions, name: str | None, out: str | Path | None) -> None:
        options.check()  # bad values fail here, before the block runs
        if out is not None:
            check_writable(Path(out), "out")
        self.options, self.name, self.out = options, name, out
        self.result: TraceResult | None = None
        self._stack: contextlib.ExitStack | None = None

    def __enter__(self) -> TraceResult:
        if self._stack is not None:
            raise RuntimeError("this tracers.trace() block is already running; make a new one to nest")
        name = self.name or DEFAULT_NAME
        with contextlib.ExitStack() as stack:
            command = [sys.argv[0] if sys.argv and sys.argv[0] else "python", f"tracers.trace(name={name!r})"]
            session = stack.enter_context(prepared_session(self.options, command))
            self.result = TraceResult(session, name)
            session.start()
            self._stack = stack.pop_all()
        return self.result

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        stack, self._stack = self._stack, None
        assert stack is not None and self.result is not None
        session = self.result._session
        try:
            if exc is not None:
                session.finish(outcome_of(exc))
            session.stop()
        finally:
            stack.close()  # cache mode and default device put back
        self.result._complete()
        if self.out is not None:
            try:
                self.result.save(self.out)
            except OSError as error:  # e.g. the disk filled during the block: the block's own outcome wins
                if exc is None:
                    raise
                self.result.trace.info.warnings.append(f"not saved to {self.out}: {error.strerror or error}")
        return False  # the block's exception, if any, goes on as it would without the tracer

    def __call__(self, function: F) -> F:
        """As a decorator: each call runs in a fresh trace; ``function.last_trace`` is the latest result."""
        name = self.name or getattr(function, "__name__", DEFAULT_NAME)

        @functools.wraps(function)
        def traced(*args: Any, **kwargs: Any) -> Any:
            block = trace.with_options(self.options, name=name, out=self.out)
            try:
                with block:
                    return function(*args, **kwargs)
            finally:
                traced.last_trace = block.result  # type: ignore[attr-defined]

        traced.last_trace = None  # type: ignore[attr-defined]
        return traced  # type: ignore[return-value]
