"""What the slow-stage note advises for bytecode tracing, from the run: the recompiles where they are most of it,
regional compilation only for a compile that traced a repeated block, else nothing."""

from __future__ import annotations

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.analysis.waste import _bytecode_advice
from tracers.tracefile.chrome import load

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "torch-2.13.0"


def test_recompiles_that_are_most_of_the_compile_are_named_not_regional_compilation():
    trace = load(DATA / "size_pinned_by_branch-live.json")  # 0/1 is about half of the compile time
    advice = _bytecode_advice(trace, analyze(trace))
    assert advice.startswith("Most of it is the recompiles' tracing") and "regional" not in advice


def test_one_compile_of_a_small_step_gets_no_regional_advice():
    trace = load(DATA / "compile_failed_in_library-live.json")  # one compile, no block traced four times
    assert _bytecode_advice(trace, analyze(trace)) is None
