"""A compile that Dynamo's own error ended, inside a library the user's line called (Lightning's ``self.log`` in a
compiled ``training_step``, torch 2.13): one finding at the user's line, not torch's innermost frame, with no
"nothing compiled" beside it; the same from the live trace and from torch's own log."""

from __future__ import annotations

import pytest

from tracers.analysis.findings import findings
from tracers.torchlogs.load import load_logs
from tracers.tracefile.chrome import load

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "torch-2.13.0"  # compile_failed_in_library.py, traced and logged


@pytest.mark.parametrize("read", ["live", "log"])
def test_dynamos_own_error_is_said_at_the_users_line_inside_the_library(read):
    trace = load(DATA / "compile_failed_in_library-live.json") if read == "live" else \
        load_logs(DATA / "compile_failed_in_library.log.gz").logs[0].trace
    problems = [finding for finding in findings(trace) if not finding.informational]
    (failure,) = problems  # the failed compile is why nothing compiled: one cause, one finding
    assert failure.kind == "compile-failed"
    assert failure.what.endswith('failed with AttributeError while tracing `self.log("train_loss", loss)` '
                                 "(lit_classifier.py:19)"), failure.what
    assert (failure.user_line.path.rsplit("/", 1)[-1], failure.user_line.line) == ("lit_classifier.py", 19)
    assert failure.parts[0] == "inside lightning's `log` (module.py:514), which that line called"
    assert failure.advice.startswith("Dynamo itself raised while tracing that line")
    assert "@torch.compiler.disable" in failure.advice


def test_a_failure_without_dynamos_record_keeps_torchs_own_line():
    trace = load(DATA / "compile_failed_in_library-live.json")
    trace.artifacts[:] = [artifact for artifact in trace.artifacts if artifact.name != "dynamo_error"]
    (failure,) = [finding for finding in findings(trace) if finding.kind == "compile-failed"]
    assert failure.user_line.line == 2474 and "while tracing" not in failure.what
    assert not failure.advice.startswith("Dynamo itself raised")
