"""The corpus (issue 38): real library programs, each traced once per session, against their declared truth.

(a) torch's own counters for the traced run equal the truth file's (must pass);
(b) our findings match the declared root causes (tests/corpus/run.py's ``judge``: verdict ``right``). A program
    whose findings are known to be wrong today carries ``"xfail"`` in its truth file: strict, so the test turns red
    the day a fix makes it right and the mark must go."""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import SIDE_BY_SIDE
from tests.corpus import run as corpus

pytest.importorskip("transformers", reason="the corpus needs transformers: nox -s corpus installs the pinned one")

TRUTHS = corpus.truths()
_RUNS: dict[str, corpus.Run] = {}

pytestmark = [pytest.mark.corpus, pytest.mark.torch]


def _missing(truth: corpus.Truth) -> list[pytest.MarkDecorator]:
    """A skip mark for a program that needs a library beyond transformers (its truth's ``"requires"``, e.g.
    accelerate) that is not installed: the importorskip above, per program."""
    missing = [name for name in truth.raw.get("requires", []) if importlib.util.find_spec(name) is None]
    return [pytest.mark.skip(reason=f"{truth.name} needs {', '.join(missing)}")] if missing else []


def _params(strict_findings: bool) -> list:
    params = []
    for truth in TRUTHS:
        marks = ([pytest.mark.slow] if truth.slow else []) + _missing(truth)
        if strict_findings and truth.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=truth.xfail))
        params.append(pytest.param(truth, id=truth.name, marks=marks))
    return params


@pytest.fixture(scope="session")
def traced(request):
    """Trace each program at most once per test session, whichever test asks first. Every program the session's
    tests will ask for is traced ahead, in their order, as many at a time as there are cores (up to two): each run is
    its own processes, so what it counts and finds does not depend on what runs beside it."""
    wanted: dict[str, corpus.Truth] = {}
    for item in request.session.items:
        if item.get_closest_marker("skip"):  # a program whose library is missing: not traced
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        truth = params["fix"].as_truth() if "fix" in params else params.get("truth")
        if isinstance(truth, corpus.Truth):
            wanted.setdefault(truth.name, truth)
    pool = ThreadPoolExecutor(max_workers=SIDE_BY_SIDE)
    ahead = {name: pool.submit(corpus.trace, truth) for name, truth in wanted.items() if name not in _RUNS}

    def get(truth: corpus.Truth) -> corpus.Run:
        if truth.name not in _RUNS:
            _RUNS[truth.name] = ahead[truth.name].result() if truth.name in ahead else corpus.trace(truth)
        return _RUNS[truth.name]
    yield get
    pool.shutdown(cancel_futures=True)  # a session stopped early (-x, Ctrl-C) traces nothing more


@pytest.mark.parametrize("truth", _params(strict_findings=False))
def test_torch_counts_match_truth(truth, traced):
    run = traced(truth)
    # a program that crashes in torch by design declares its exit status ("exit")
    assert run.returncode == truth.raw.get("exit", 0), f"{truth.name} exited {run.returncode}:\n{run.output}"
    assert not corpus.counts_differ(truth, run), corpus.counts_differ(truth, run)


@pytest.mark.parametrize("truth", _params(strict_findings=True))
def test_findings_match_truth(truth, traced):
    run = traced(truth)
    assert run.error is None, run.error
    verdict = corpus.judge(truth, run.findings)
    assert verdict.verdict == "right", "\n".join([f"{truth.name}: {verdict.verdict}", *verdict.reasons])


# -- the fixes (truth's "fix"): each finding's fix applied in fixed/<name>.py and traced again -------------------------

FIXES = corpus.fixes()
# The fixes run by default (-m 'not slow'): four short programs; the rest are marked slow.
DEFAULT_FIXES = {"activation_arg", "dropout_epochs", "ddpm_sampler", "regional_blocks"}


def _fix_params() -> list:
    params = []
    for fix in FIXES:
        marks = [] if fix.name_id in DEFAULT_FIXES and not fix.truth.slow else [pytest.mark.slow]
        marks += _missing(fix.truth)
        if fix.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=fix.xfail))
        params.append(pytest.param(fix, id=fix.name_id, marks=marks))
    return params


@pytest.mark.parametrize("fix", _fix_params())
def test_fix_checked(fix, traced):
    """The fixed program runs, torch counts what its truth declares, nothing is worse than the original's declared
    counts, and no finding of the fix's family names the cause any more."""
    run = traced(fix.as_truth())
    assert run.returncode == 0, f"{fix.program.name} exited {run.returncode}:\n{run.output}"
    assert not corpus.counts_differ(fix.as_truth(), run), corpus.counts_differ(fix.as_truth(), run)
    said = corpus.worse(fix, corpus.first_counts(fix.truth.torch), corpus.first_counts(run.torch))
    assert not said, f"the fix made {fix.truth.name} worse: {said}"
    assert run.error is None, run.error
    left = corpus.fix_findings(fix, run.findings)
    before = corpus.fix_findings(fix, traced(fix.truth).findings) if fix.finding not in ("gone", "limit-gone") else []
    assert corpus.finding_gone(fix, left, before), [finding.what for finding in left]


@pytest.mark.parametrize("fix", [param for param in _fix_params() if not param.values[0].xfail])
def test_fix_is_what_the_finding_says(fix, traced):
    """The original run's finding still gives the fix the fixed program applies (else fixed/ is stale)."""
    found = corpus.fix_findings(fix, traced(fix.truth).findings)
    assert found, f"no {fix.finding_kind} finding naming {fix.name} in {fix.truth.name}"
    assert any(fix.applied in (finding.fix or "") for finding in found), [finding.fix for finding in found]


def test_layers_compiled_one_by_one_are_said_as_one_code(traced):
    """hf_llama_regional: each decoder layer compiled on its own. The cache slot that differs between the layers of one
    call is said as per-layer state with the fix that works; the cache's type, changed between two calls of the model
    (use_cache), is not; and no note tells a user who compiles per layer to compile per layer."""
    run = traced(next(truth for truth in TRUTHS if truth.name == "hf_llama_regional"))
    assert run.error is None, run.error
    [per_layer] = [finding for finding in run.findings if "every layer runs this code" in finding.what]
    assert "is_initialized" in per_layer.what and "modeling_llama.py:" in per_layer.what
    assert "use_cache=False" in per_layer.fix and "recompile_limit" in per_layer.fix
    [typed] = [finding for finding in run.findings if "the type of `cache` changed" in finding.what]
    assert "every layer" not in typed.what and "use_cache" in typed.fix
    assert not any("regional compilation" in (finding.fix or "") for finding in run.findings)
