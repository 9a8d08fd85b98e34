"""What a script can leave broken for the tracer's own work after it (a closed stderr, a low recursion limit): set
right while the trace is written and its summary said, then given back as the script left it."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator

# The depth the tracer's own finishing is written for (json, the page's templates, lazy imports): Python's default.
# A script that lowered the limit (sys.setrecursionlimit(60)) would otherwise end in a RecursionError of ours.
TRACER_DEPTH = 1000


def usable(stream: object) -> bool:
    """Whether ``stream`` can still be written: not None, not closed, its file descriptor (if it has one) open."""
    if stream is None or getattr(stream, "closed", False):
        return False
    try:
        descriptor = stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return True  # a stream of no file (a notebook's, pytest's capture): writable while not closed
    try:
        os.fstat(descriptor)
    except OSError:  # os.close(2) under an open sys.stderr: every write would fail at its flush
        return False
    return True


@contextlib.contextmanager
def tracer_footing(depth: int = TRACER_DEPTH) -> Iterator[None]:
    """While the block runs: a closed stdout or stderr is swapped for a sink (the summary then has nowhere to go, and
    the trace is still written), and the recursion limit is at least ``depth``. Both are put back after it, so the
    script's own atexit code finds them as it left them."""
    saved_out, saved_err, saved_depth = sys.stdout, sys.stderr, sys.getrecursionlimit()
    sink = None
    if not usable(sys.stdout) or not usable(sys.stderr):
        sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed below, after the streams are back
        sys.stdout = sys.stdout if usable(sys.stdout) else sink
        sys.stderr = sys.stderr if usable(sys.stderr) else sink
    if saved_depth < depth:
        sys.setrecursionlimit(depth)
    try:
        yield
    finally:
        if sys.getrecursionlimit() != saved_depth:
            with contextlib.suppress(RecursionError, ValueError):  # refused only at a depth past it: keep ours then
                sys.setrecursionlimit(saved_depth)
        if sink is not None:
            sys.stdout, sys.stderr = saved_out, saved_err
            sink.close()
