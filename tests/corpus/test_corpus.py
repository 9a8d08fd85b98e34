"""The corpus (issue 38): real library programs, each traced once per session, against their declared truth.

(a) torch's own counters for the traced run equal the truth file's (must pass);
(b) our findings match the declared root causes (tests/corpus/run.py's ``judge``: verdict ``right``). A program
    whose findings are known to be wrong today carries ``"xfail"`` in its truth file: strict, so the test turns red
    the day a fix makes it right and the mark must go."""

from __future__ import annotations

import pytest

from tests.corpus import run as corpus

pytest.importorskip("transformers", reason="the corpus needs transformers: nox -s corpus installs the pinned one")

TRUTHS = corpus.truths()
_RUNS: dict[str, corpus.Run] = {}

pytestmark = [pytest.mark.corpus, pytest.mark.torch]


def _params(strict_findings: bool) -> list:
    params = []
    for truth in TRUTHS:
        marks = [pytest.mark.slow] if truth.slow else []
        if strict_findings and truth.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=truth.xfail))
        params.append(pytest.param(truth, id=truth.name, marks=marks))
    return params


@pytest.fixture(scope="session")
def traced():
    """Trace each program at most once per test session, whichever test asks first."""
    def get(truth: corpus.Truth) -> corpus.Run:
        if truth.name not in _RUNS:
            _RUNS[truth.name] = corpus.trace(truth)
        return _RUNS[truth.name]
    return get


@pytest.mark.parametrize("truth", _params(strict_findings=False))
def test_torch_counts_match_truth(truth, traced):
    run = traced(truth)
    assert run.returncode == 0, f"{truth.name} exited {run.returncode}:\n{run.output}"
    assert not corpus.counts_differ(truth, run), corpus.counts_differ(truth, run)


@pytest.mark.parametrize("truth", _params(strict_findings=True))
def test_findings_match_truth(truth, traced):
    run = traced(truth)
    assert run.error is None, run.error
    verdict = corpus.judge(truth, run.findings)
    assert verdict.verdict == "right", "\n".join([f"{truth.name}: {verdict.verdict}", *verdict.reasons])
