"""torch's vague hints made into fixes a user can paste, and the tracer can apply to check them."""

from __future__ import annotations

import pytest

from tracers.analysis.finding_type import Finding
from tracers.analysis.frames import SourceLine
from tracers.analysis.hint_checks import checked_hints

pytestmark = pytest.mark.pure

_PRINT_HINT = ("Avoid calling builtin `print` with argument types ['str', 'Tensor']. Consider using an equivalent "
               "alternative function/method to `print`.")


def _break(code: str, hint: str) -> Finding:
    return Finding("graph-break", "1 graph break: Failed to trace builtin operator", 1, ("0/0",), 0.1,
                   user_line=SourceLine("/home/u/train.py", 7, "step", code), hint=hint)


def test_a_print_break_names_the_setting_that_keeps_it_and_carries_it_as_a_fix_to_check():
    [finding] = checked_hints([_break('print("mean", y.mean())', _PRINT_HINT)])
    assert "reorderable_logging_functions.add(print)" in finding.advice
    [remedy] = finding.remedies
    assert (remedy.kind, remedy.name, remedy.line) == ("reorder-logging", "print", 7)
    assert remedy.said == ("`print` (the call at train.py:7) added to "
                           "torch._dynamo.config.reorderable_logging_functions")


def test_a_line_that_only_mentions_print_gets_no_print_fix():
    [finding] = checked_hints([_break("self.printer(y)", _PRINT_HINT)])
    assert finding.remedies == () and finding.advice is None
