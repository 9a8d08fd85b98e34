"""An ``os._exit(n)`` after the trace was written (an atexit handler's, as the interpreter shuts down): the trace is
set to the status the process really ends with before it ends, since the one the script returned no longer holds."""

from __future__ import annotations

import os
from collections.abc import Callable

# The trace's rewrite, given the status the process ends with; only the latest run's (an API caller may trace twice).
_rewrite: Callable[[int], None] | None = None
_recorded = 0
_pid = 0


def watch(recorded: int, rewrite: Callable[[int], None]) -> None:
    """From now until the process ends, an ``os._exit`` with another status than ``recorded`` first calls
    ``rewrite(status)``; a forked child's exit, or one with the recorded status, is passed straight on."""
    global _rewrite, _recorded, _pid
    _rewrite, _recorded, _pid = rewrite, recorded, os.getpid()
    if not getattr(os._exit, "_tracers_late_exit", False):
        os._exit = _watched(os._exit)


def _watched(real_exit: Callable[[int], None]) -> Callable[[int], None]:
    def _exit(status: int) -> None:
        global _rewrite
        rewrite, _rewrite = _rewrite, None  # once: the rewrite may itself end in another os._exit
        if rewrite is not None and os.getpid() == _pid and isinstance(status, int) and status % 256 != _recorded:
            try:
                rewrite(status)
            except BaseException:  # noqa: BLE001 - the process was told to end now: nothing may stop it
                pass
        real_exit(status)

    _exit._tracers_late_exit = True  # type: ignore[attr-defined]
    return _exit
