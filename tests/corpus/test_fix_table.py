"""The corpus fixes table's "checked by" column: a fix the tracer applies itself is one --check-fixes applies too."""

from __future__ import annotations

from types import SimpleNamespace

from tests.corpus import run as corpus
from tracers.analysis.finding_type import Remedy


def _finding(*remedies: Remedy) -> SimpleNamespace:
    return SimpleNamespace(remedies=remedies)


def test_a_logging_fix_the_finding_carries_is_one_check_fixes_applies_too():
    fix = SimpleNamespace(applied="Adding that function to torch._dynamo.config.ignore_logging_functions")
    claimed = [_finding(Remedy("ignore-logging", "logger.warning_once", None, "m.py", 3))]
    assert corpus.checked_by(fix, claimed) == "fixed program (--check-fixes applies it too)"


def test_a_code_change_is_checked_by_its_fixed_program_only():
    fix = SimpleNamespace(applied="Drop it (DataLoader(..., drop_last=True))")
    claimed = [_finding(Remedy("compile-argument", "dynamic", True, "m.py", 3))]
    assert corpus.checked_by(fix, claimed) == "fixed program (a change to the code)"


def test_words_of_a_setting_without_the_remedy_are_not_claimed_as_checked():
    fix = SimpleNamespace(applied="Set torch._dynamo.config.trace_autograd_ops=True")
    assert corpus.checked_by(fix, [_finding()]) == "fixed program (a change to the code)"


def test_any_argument_of_torch_compile_the_finding_carries_is_one_check_fixes_applies_too():
    fix = SimpleNamespace(applied="isolate_recompiles=True")
    claimed = [_finding(Remedy("compile-argument", "isolate_recompiles", True, "m.py", 3))]
    assert corpus.checked_by(fix, claimed) == "fixed program (--check-fixes applies it too)"
