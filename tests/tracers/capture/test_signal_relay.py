"""The signal relay: a handler still runs when the kernel gives the signal to another thread; the program's own
wakeup fd is left alone, and ours is given back."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tracers.capture.signal_relay import SignalRelay

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

_BLOCKED_MAIN = textwrap.dedent("""
    import signal, threading, time, multiprocessing
    from tracers.capture.signal_relay import SignalRelay

    class Handled(Exception):
        pass

    handled = threading.Event()

    def on_signal(signum, frame):
        handled.set()
        raise Handled()

    signal.signal(signal.SIGUSR1, on_signal)
    relay = SignalRelay(signal.SIGUSR1, handled, lambda: print("taken over", flush=True))
    print("relay", relay.start(), flush=True)

    def signal_this_thread():
        time.sleep(0.2)
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)

    threading.Thread(target=signal_this_thread, daemon=True).start()
    lock = multiprocessing.Lock()
    lock.acquire()
    try:
        lock.acquire(timeout=60)  # blocked in sem_timedwait: only a signal to this thread interrupts it
        print("not interrupted", flush=True)
    except Handled:
        print("handled in the main thread", flush=True)
    relay.stop()
""")


def test_a_signal_given_to_another_thread_runs_the_main_threads_handler() -> None:
    run = subprocess.run([sys.executable, "-c", _BLOCKED_MAIN], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert run.stdout == "relay True\nhandled in the main thread\n", run.stderr


def test_the_programs_own_wakeup_fd_is_left_alone() -> None:
    read, write = os.pipe()
    os.set_blocking(write, False)
    previous = signal.set_wakeup_fd(write)
    try:
        assert SignalRelay(signal.SIGTERM, None, lambda: None).start() is False  # type: ignore[arg-type]
        assert signal.set_wakeup_fd(write) == write
    finally:
        signal.set_wakeup_fd(previous)
        os.close(read)
        os.close(write)


def test_stop_gives_the_wakeup_fd_back() -> None:
    import threading

    previous = signal.set_wakeup_fd(-1)
    try:
        relay = SignalRelay(signal.SIGTERM, threading.Event(), lambda: None)
        assert relay.start() is True
        relay.stop()
        assert signal.set_wakeup_fd(-1) == -1
    finally:
        signal.set_wakeup_fd(previous)
