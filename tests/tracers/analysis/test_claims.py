"""The claim checker over every trace the repository keeps (issue 51): the recorded site traces of every release,
the test data and the corpus's kept traces. A finding that says what its run refutes fails here."""

from __future__ import annotations

import pytest

from tracers.analysis.claim_check import check
from tracers.analysis.claims import Claim, unbacked
from tracers.analysis.run_evidence import RunEvidence
from tracers.analysis.claims import holds
from tracers.tracefile.chrome import load
from tracers.ranks.merge import is_merged_file, load_merged

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

KEPT = sorted(path for folder in (ROOT / "docs" / "_traces", ROOT / "tests" / "data", ROOT / "tests" / "corpus")
              for path in folder.rglob("*.json") if path.stat().st_size < 40_000_000)


def _traces():
    for path in KEPT:
        try:
            yield path, ([trace for _, trace in load_merged(path).present] if is_merged_file(path) else [load(path)])
        except Exception:  # noqa: BLE001 - a fixture that is no trace of ours (a truth file, a measurement)
            continue


def test_the_kept_traces_are_many():
    assert sum(1 for _ in _traces()) >= 40


@pytest.mark.parametrize("path", [path for path, _ in _traces()], ids=lambda path: str(path.relative_to(ROOT)))
def test_no_finding_says_what_its_run_refutes(path):
    """A merge's ranks too: one checker for trace, report and merge."""
    traces = [trace for _, trace in load_merged(path).present] if is_merged_file(path) else [load(path)]
    assert [problem for trace in traces for problem in check(trace)] == []


def test_a_sentence_needs_its_claim():
    assert unbacked("It changed for one call only (the new version served 1 call)", ()) == ["for one call only"]
    claim = Claim("served-once", ("0/1", "x"), "yes")
    assert unbacked("It changed for one call only", (claim,)) == []


def test_served_once_fails_where_the_value_changed_again():
    from tracers.analysis.guard_failures import GuardFailure

    failure = GuardFailure("0/1", "ids", "size", "dimension 1: 4 before, now 5", None, None, "")
    evidence = RunEvidence(versions={"0": ["0/0", "0/1", "0/2"]}, served={"0/0": 1, "0/1": 1, "0/2": 1},
                           failures={"0/2": failure})
    assert not holds(Claim("served-once", ("0/1", "ids"), ""), evidence)
    assert holds(Claim("served-once", ("0/2", "ids"), ""), evidence)
    assert not holds(Claim("served-later-calls", ("0/1", "ids"), ""), evidence)
    assert holds(Claim("default-limit", ("0/1",), ""), evidence)
    evidence.config["0/1"] = {"recompile_limit": 4}
    assert not holds(Claim("default-limit", ("0/1",), ""), evidence)
    assert holds(Claim("limit-is", ("0/1", "4"), ""), evidence)


def test_no_later_call_compiled_again_fails_where_the_size_changed_again_against_a_later_version():
    """A short batch that failed the dynamic version's range guard of a version compiled later (an evaluation's)."""
    from tracers.analysis.guard_failures import parse_failure

    first = parse_failure("0/0: tensor 'x' size mismatch at index 0. expected 32, actual 8")
    mode = parse_failure("0/1: L['self'].training == True")
    again = parse_failure("0/2: 16 <= L['x'].size()[0]")
    evidence = RunEvidence(versions={"0": ["0/0", "0/1", "0/2", "0/3"]},
                           failures={"0/1": first, "0/2": mode, "0/3": again})
    assert evidence.changed_again("0/1", "x", 0) == ["0/3"]
    assert not holds(Claim("served-later-calls", ("0/1", "x", "0"), ""), evidence)
    del evidence.failures["0/3"]
    assert holds(Claim("served-later-calls", ("0/1", "x", "0"), ""), evidence)
