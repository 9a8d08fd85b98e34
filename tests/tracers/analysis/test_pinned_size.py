"""A size the user's own branch pins under ``dynamic=True`` (issue 54, item 2): the recompile is said as that line's,
never as automatic dynamic, and no marking is offered; the same from the live trace and from torch's own log."""

from __future__ import annotations

import pytest

from tracers.analysis.findings import findings
from tracers.torchlogs.load import load_logs
from tracers.tracefile.chrome import load

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "torch-2.13.0"  # size_pinned_by_branch.py, traced and logged with torch 2.13.0


@pytest.mark.parametrize("read", ["live", "log"])
def test_a_size_pinned_by_a_branch_under_dynamic_true_is_that_lines_and_gets_no_marking(read):
    trace = load(DATA / "size_pinned_by_branch-live.json") if read == "live" else \
        load_logs(DATA / "size_pinned_by_branch.log.gz").logs[0].trace
    (finding,) = [finding for finding in findings(trace) if finding.kind == "recompile"]
    assert finding.what.startswith("`score` recompiled 1 time: the size of `rows` changed from the 3 that version "
                                   "0/0 pinned"), finding.what
    assert (finding.user_line.line, finding.user_line.code) == (5, "if rows.shape[0] == 3:")
    assert "pin.py:5 (`if rows.shape[0] == 3:`) made it the constant 3" in finding.advice
    assert "ConstraintViolationError" in finding.advice
    for wrong in ("automatic dynamic", "mark_dynamic(tensor", "To skip the first"):
        assert wrong not in finding.what + finding.advice
    assert not finding.remedies, "no torch.compile argument to check: dynamic=True is what the run had"
    assert {claim.kind for claim in finding.claims} >= {"pinned", "served-later-calls"}
