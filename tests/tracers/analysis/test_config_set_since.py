"""A config field the model sets on its first call (transformers' config.problem_type), compiled for by a library's
loop: said as state set since, to set before the first call, whether torch names it first or behind a size change
(blind round 10's Trainer program, where it hid behind the padded length)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.analysis.findings import findings

from tests.conftest import run_trace, side_by_side

pytestmark = pytest.mark.torch

PROGRAM = Path(__file__).resolve().parents[2] / "programs" / "findings" / "library_config.py"


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("library-config")
    modes = {"sizes": (), "repeat": ("repeat",)}
    runs = side_by_side({mode: lambda mode=mode: run_trace(PROGRAM, out / mode, "--no-page", script_args=modes[mode])
                         for mode in modes})
    for run in runs.values():
        assert run.returncode == 0, run.stderr[-2000:]
    return {mode: [finding for finding in findings(run.trace()) if finding.kind == "recompile"]
            for mode, run in runs.items()}


def test_a_field_hidden_behind_a_size_change_is_said_with_it(found):
    (size,) = found["sizes"]
    assert "the size of `x` changed" in size.what
    assert "would have failed this call on `self.config.problem_type` too (None then, 'regression' now" in size.fix
    assert "set it before the first call" in size.fix


def test_a_field_that_recompiles_on_its_own_is_state_set_since_not_a_number_to_hold_in_a_tensor(found):
    field = next(finding for finding in found["repeat"] if "problem_type" in finding.what)
    assert "was None when version 0/0 was compiled and holds 'regression' now" in field.fix
    assert "register_buffer" not in field.fix and "Set it before the first call" in field.fix
