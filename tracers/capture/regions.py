"""Named regions a script marks itself (``with region("first call"):``), shown beside the compile steps."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tracers.tracefile.events import Trace
from tracers.tracefile.stages import USER_STAGE, Target

from .recorder import Recorder

_active: list[Recorder] = []  # recorders of the tracing sessions now running, outermost first


def activate(recorder: Recorder) -> None:
    _active.append(recorder)


def deactivate(recorder: Recorder) -> None:
    if recorder in _active:
        _active.remove(recorder)


class Regions:
    """A session's collector (capture/collector.py): its recorder takes the script's regions while it runs."""

    what = "the script's regions"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def start(self) -> None:
        activate(self.recorder)

    def stop(self) -> None:
        deactivate(self.recorder)

    def contribute(self, trace: Trace) -> None:
        pass  # its spans are the recorder's


@contextlib.contextmanager
def region(name: str) -> Iterator[None]:
    """Record the enclosed code as a span named ``name``; does nothing when no trace is running.

    Scripts that should also run without this package can fall back to
    ``contextlib.nullcontext``, which takes the same single argument.
    """
    recorders = [recorder for recorder in _active if recorder.active]
    if not recorders:
        yield
        return
    target = Target(USER_STAGE, name, USER_STAGE)
    spans = [(recorder, recorder.enter(target, ())) for recorder in recorders]
    error: BaseException | None = None
    try:
        yield
    except BaseException as raised:
        error = raised
        raise
    finally:
        for recorder, span in reversed(spans):
            recorder.exit(span, error)
