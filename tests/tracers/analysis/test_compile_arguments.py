"""A mode passed to torch.compile with a backend that drops it (aot_eager, eager) is said, at the call."""

from __future__ import annotations

import pytest

from tracers.analysis.compile_arguments import ignored_arguments
from tracers.analysis.run_evidence import CompileCall, RunEvidence

pytestmark = pytest.mark.pure


def _call(**arguments) -> CompileCall:
    return CompileCall("/home/u/train.py", 10, "cmodel = torch.compile(model, ...)", arguments)


def test_a_mode_given_to_aot_eager_is_said_to_do_nothing():
    [finding] = ignored_arguments(RunEvidence(calls=[_call(backend="aot_eager", mode="max-autotune", dynamic=False)]))
    assert finding.kind == "ignored-argument" and finding.user_line.short == "train.py:10"
    assert finding.what.startswith("torch.compile(..., mode='max-autotune') does nothing here: backend='aot_eager'")
    assert "Leave `mode=` out" in finding.fix and finding.cost_s == 0.0


@pytest.mark.parametrize("arguments", [{"backend": "inductor", "mode": "max-autotune"}, {"mode": "reduce-overhead"},
                                       {"backend": "aot_eager", "mode": "default"}, {"backend": "my_backend",
                                                                                     "mode": "fast"}])
def test_a_mode_inductor_or_a_backend_of_ones_own_takes_is_not_said(arguments):
    assert ignored_arguments(RunEvidence(calls=[_call(**arguments)])) == []


def test_a_librarys_call_is_not_the_users_to_change():
    library = CompileCall("/venv/accelerate/accelerator.py", 2073, "", {"backend": "aot_eager", "mode": "default-x"},
                          user_file="/home/u/train.py", user_line=31)
    assert ignored_arguments(RunEvidence(calls=[library])) == []
