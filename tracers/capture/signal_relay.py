"""A signal the kernel gave to another thread still reaches the main thread's Python handler."""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from typing import Callable

# How long the main thread gets to run its handler before the signal is sent to it directly, and then before
# the relay takes over: a main thread busy in one long C call runs no Python handler until the call returns.
_NUDGE_AFTER_S = 0.2
_TAKE_OVER_AFTER_S = 1.0


class SignalRelay:
    """Watches Python's signal wakeup fd: a signal whose handler has not run is sent to the main thread.

    The kernel may give a process-directed signal to any thread. Python runs its handlers in the main thread
    only, when it next runs bytecode; a main thread blocked in ``sem_wait`` (a pool worker waiting on the task
    queue's lock) is never interrupted, so the handler never runs and the process, which the default action
    would have ended, lives on. Python writes every signal's number to the wakeup fd, in whatever thread.
    """

    def __init__(self, signum: int, handled: threading.Event, take_over: Callable[[], None]):
        self.signum = signum
        self.handled = handled
        self.take_over = take_over
        self._fds: tuple[int, int] | None = None

    def start(self) -> bool:
        """Install the wakeup fd and its watcher (main thread only); False where the program has its own fd."""
        read, write = os.pipe()
        os.set_blocking(write, False)
        try:
            previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        except ValueError:  # not the main thread
            previous = -2
        if previous != -1:
            if previous != -2:
                signal.set_wakeup_fd(previous)  # asyncio's, or the program's own: theirs, not ours
            os.close(read)
            os.close(write)
            return False
        self._fds = (read, write)
        threading.Thread(target=self._watch, args=(read,), name="tracers-signal-relay", daemon=True).start()
        os.register_at_fork(after_in_child=self._forget)
        return True

    def stop(self) -> None:
        """Give the wakeup fd back where it is still ours; the watcher ends as its pipe closes."""
        if self._fds is None:
            return
        read, write = self._fds
        self._fds = None
        try:
            current = signal.set_wakeup_fd(-1)
            if current != write:
                signal.set_wakeup_fd(current)
        except ValueError:  # not the main thread: the fd stays set, and its pipe simply fills
            return
        os.close(write)

    def _forget(self) -> None:
        """A forked child shares the pipe: its signals must not reach this process's watcher."""
        if self._fds is None:
            return
        read, write = self._fds
        self._fds = None
        current = signal.set_wakeup_fd(-1)
        if current != write:
            signal.set_wakeup_fd(current)
        for fd in (read, write):
            os.close(fd)

    def _watch(self, read: int) -> None:
        main = threading.main_thread().ident
        while True:
            try:
                data = os.read(read, 64)
            except OSError:
                return
            if not data:
                return
            if self.signum not in data or self.handled.is_set():
                continue
            if self.handled.wait(_NUDGE_AFTER_S):
                continue
            if main is not None:
                signal.pthread_kill(main, self.signum)  # interrupts its blocking call; then its handler runs
            if not self.handled.wait(_TAKE_OVER_AFTER_S):
                self.take_over()
                return


def die_by(signum: int) -> None:
    """End this process by ``signum``'s default action, from any thread."""
    try:
        signal.signal(signum, signal.SIG_DFL)
    except ValueError:  # not the main thread: only the C library can reset the action from here
        ctypes.CDLL(None).signal(ctypes.c_int(signum), ctypes.c_void_p(0))  # 0 is SIG_DFL
    os.kill(os.getpid(), signum)
