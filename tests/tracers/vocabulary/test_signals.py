"""A process ended by a signal is said by the signal's name, a real-time one by its number."""

import signal

import pytest

from tracers.vocabulary.signals import killed_by, signal_name

pytestmark = pytest.mark.pure


def test_signals_are_said_by_name_and_sigkill_with_its_likely_cause():
    assert killed_by(signal.SIGSEGV) == "killed by SIGSEGV"
    assert killed_by(signal.SIGKILL) == "killed by SIGKILL (out of memory?)"
    assert signal_name(signal.SIGRTMIN + 3) == f"signal {signal.SIGRTMIN + 3}"  # Python names only SIGRTMIN and MAX
