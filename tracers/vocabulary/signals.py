"""How a process ended by a signal is said: by the signal's name, and what SIGKILL most often means."""

from __future__ import annotations

import signal


def signal_name(signum: int) -> str:
    """``SIGTERM``; a real-time signal, which Python names only first and last, by its number."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def killed_by(signum: int) -> str:
    """``killed by SIGSEGV``; ``killed by SIGKILL (out of memory?)``: the kernel's OOM killer sends SIGKILL."""
    return f"killed by {signal_name(signum)}" + (" (out of memory?)" if signum == signal.SIGKILL else "")
