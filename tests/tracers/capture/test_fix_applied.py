"""--apply-fix's logging kinds: the function put in its config set while the run lasts, and taken out after."""

from __future__ import annotations

import builtins

import pytest

torch = pytest.importorskip("torch")

from tracers.capture.fix_applied import FixApplied  # noqa: E402


class _Recorder:
    argument_observers: dict = {}


def test_a_reordered_print_is_in_torchs_set_for_the_run_only():
    import torch._dynamo.config as config

    before = set(config.reorderable_logging_functions)
    applied = FixApplied(_Recorder(), {"kind": "reorder-logging", "name": "print", "file": "train.py", "line": 7})
    assert applied.start() is None
    applied._before_compile(None, ())
    assert builtins.print in config.reorderable_logging_functions and applied.applied == 1
    applied.stop()
    assert set(config.reorderable_logging_functions) == before
