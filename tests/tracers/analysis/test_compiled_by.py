"""Who compiled, as a sentence: the library the user's line called, named with its own function; torch's own
wrappers on the way (a no_grad decorator) are not whom the user called."""

from __future__ import annotations

import pytest

from tracers.analysis.compiled_by import compiled_by
from tracers.analysis.run_evidence import RunEvidence, _compile_call

pytestmark = pytest.mark.pure


def _call(entry_file: str, entry_name: str) -> dict:
    return {"filename": "<site-packages>/accelerate/accelerator.py", "line": 2073, "loc": "model = torch.compile(model)",
            "arguments": {"backend": "inductor"}, "compiled": {"name": "Bert.forward"},
            "user": {"filename": "train.py", "line": 43, "loc": "trainer.train()"},
            "entry": {"filename": entry_file, "name": entry_name}}


def test_a_library_ending_in_s_is_said_as_its_possessive():
    evidence = RunEvidence(calls=[_compile_call(_call("<site-packages>/transformers/trainer.py", "Trainer.train"))])
    (said,) = compiled_by(evidence)
    assert said.startswith("compiled by transformers' `Trainer.train` (through accelerate), not by your code")


def test_torchs_own_wrapper_is_not_the_function_the_user_called():
    call = _compile_call(_call("<site-packages>/torch/utils/_contextlib.py", "context_decorator.<locals>.decorate_context"))
    assert (call.entry_file, call.entry_name) == ("", "")
    (said,) = compiled_by(RunEvidence(calls=[call]))
    assert said.startswith("compiled by accelerate, not by your code")
