"""A size change that is the shorter last batch of each pass over the data: told to drop it (drop_last=True) or pad it,
costed as the compile time that saves, only where the calls each version served fit passes of full batches then the
short one; sizes that change for other reasons keep the automatic-dynamic advice."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tracers.analysis import recompiles
from tracers.analysis.findings import findings
from tracers.analysis.guard_failures import parse_failure
from tracers.analysis.trace_facts import CompileFacts

from tests.conftest import run_trace

PROGRAM = Path(__file__).resolve().parents[2] / "programs" / "findings" / "last_batch.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The program in each mode, traced once through the command line (aot_eager)."""
    out = tmp_path_factory.mktemp("last_batch")
    return {mode: run_trace(PROGRAM, out / mode, "--no-page", script_args=(mode,))
            for mode in ("uneven", "drop_last", "varying", "eval")}


def _call_line() -> str:
    lines = PROGRAM.read_text().splitlines()
    return f"{PROGRAM.name}:{next(number for number, line in enumerate(lines, 1) if '# the call' in line)}"


def _recompiles(run) -> list:  # noqa: ANN001 - a CliRun
    assert run.returncode == 0, run.stderr
    return [finding for finding in findings(run.trace(), run.facts()) if finding.kind == "recompile"]


@pytest.mark.torch
def test_a_shorter_last_batch_every_epoch_is_told_to_drop_it(runs):
    run = runs["uneven"]
    [finding] = _recompiles(run)
    # 3 epochs of 4, 4, 2: the first version served the first epoch's full batches, the dynamic one every call after.
    assert run.trace().info.calls_served == {"0/0": 2, "0/1": 7}
    assert finding.user_line.short == _call_line() and "`x`" in finding.what and "as dynamic" in finding.what
    assert "shorter last batch of each pass" in finding.fix
    assert "fit 3 passes of 2 batches of 4 (dimension 0) then one of 2" in finding.fix
    assert "DataLoader(..., drop_last=True)" in finding.fix and "pad it to 4" in finding.fix
    assert "Nothing to fix" not in finding.fix and "no later call compiled again" not in finding.fix
    # Costed as what dropping it saves: the whole recompile, its backward included.
    compiles = {facts.compile_id: facts for facts in run.facts().compiles}
    assert finding.compile_ids == ("0/1",)
    assert finding.cost_s == pytest.approx(compiles["0/1"].time_ns / 1e9, rel=1e-9)
    assert "what dropping the last batch saves" in finding.cost


@pytest.mark.torch
def test_a_short_batch_with_gradients_off_is_told_to_pad_never_to_drop(runs):
    """An evaluation's or an embedding job's batches: dropping one drops its results, and the call counts alone do not
    tell passes over one dataset from batches that just differ (blind round 10)."""
    [finding] = _recompiles(runs["eval"])
    assert "drop_last" not in finding.fix and "Drop it" not in finding.fix
    assert "gradients off" in finding.fix and "pad the short batches to 4 rows" in finding.fix
    assert "the run counts calls, not their sizes" in finding.fix and "what padding that batch saves" in finding.cost


@pytest.mark.torch
def test_the_fix_applied_leaves_no_recompile(runs):
    """drop_last=True, traced again: one version serves every call, and nothing else is found instead."""
    run = runs["drop_last"]
    assert not _recompiles(run)
    trace = run.trace()
    assert trace.info.calls_served == {"0/0": 6}
    assert trace.info.totals_check["torch"]["recompiles"] == 0
    assert not [finding for finding in findings(trace, run.facts()) if not finding.informational]


@pytest.mark.torch
def test_sizes_that_change_for_another_reason_keep_the_dynamic_advice(runs):
    run = runs["varying"]
    [finding] = _recompiles(run)
    assert run.trace().info.calls_served == {"0/0": 2, "0/1": 5}  # 7 calls: no passes of 2 full batches and a short
    assert finding.fix.startswith("Nothing to fix if it keeps changing") and "drop_last" not in finding.fix
    assert "dropping the last batch" not in finding.cost


# -- the evidence, on torch's records as a trace holds them ----------------------------------------------------------

def _group(*failures: tuple[str, str]) -> recompiles._Group:
    return recompiles._Group("forward (model.py:3)",
                             [(compile_id, parse_failure(text)) for compile_id, text in failures])


def _compiles(**calls: int | None) -> dict[str, CompileFacts]:
    """``v0_1=2``: compile 0/1, one graph, served 2 calls."""
    made = {}
    for name, served in calls.items():
        compile_id = name[1:].replace("_", "/")
        made[compile_id] = CompileFacts(compile_id, "forward (model.py:3)", graphs=1, calls=served)
    return made


_SHORT = "0/0: tensor 'x' size mismatch at index 0. expected 4, actual 2"


@pytest.mark.pure
def test_the_calls_fit_passes_whichever_version_served_the_full_batches():
    # The new version took every call from the first short batch on: 2 full, then 2 more passes of 3 calls.
    assert recompiles._last_batches(_group(("0/1", _SHORT)), _compiles(v0_0=2, v0_1=7), {}) == \
        recompiles._Passes(full=4, short=2, passes=3, batches=2)
    # The version before kept the full batches (a slice's storage offset refused the new one): one short call a pass.
    assert recompiles._last_batches(_group(("0/1", _SHORT)), _compiles(v0_0=4, v0_1=2), {}) == \
        recompiles._Passes(full=4, short=2, passes=2, batches=2)
    # One pass: the short batch once.
    assert recompiles._last_batches(_group(("0/1", _SHORT)), _compiles(v0_0=2, v0_1=1), {}).passes == 1


@pytest.mark.pure
def test_no_last_batch_is_said_without_the_evidence():
    fits = _compiles(v0_0=2, v0_1=7)
    assert recompiles._last_batches(_group(("0/1", _SHORT)), _compiles(v0_0=2, v0_1=5), {}) is None  # 7 calls: no passes
    assert recompiles._last_batches(_group(("0/1", _SHORT)), _compiles(v0_0=2, v0_1=None), {}) is None  # not counted
    larger = "0/0: tensor 'x' size mismatch at index 0. expected 2, actual 4"
    assert recompiles._last_batches(_group(("0/1", larger)), fits, {}) is None  # a larger batch is no remainder
    length = "0/0: tensor 'x' size mismatch at index 1. expected 16, actual 24"
    assert recompiles._last_batches(_group(("0/1", length)), fits, {}) is None  # not the batch dimension
    again = {**fits, "0/2": CompileFacts("0/2", "forward (model.py:3)", graphs=1, calls=1)}
    assert recompiles._last_batches(_group(("0/1", _SHORT)), again, {}) is None  # compiled again: another size
    # a later version for another cause (an evaluation's grad mode) serves calls of its own: the passes still fit
    grad = parse_failure("0/1: GLOBAL_STATE changed: grad_mode")
    assert recompiles._last_batches(_group(("0/1", _SHORT)), again, {"0/2": grad}).passes == 3


@pytest.mark.pure
def test_the_short_batch_refused_again_by_a_version_of_another_mode_is_the_same_last_batch():
    """0/1: the short batch (4 -> 2); 0/2: compiled for eval mode, its batch dynamic from 3 up; 0/3: the short batch
    again, refused by 0/2's range: two recompiles, one cause, while the short versions served one call a pass."""
    from tracers.analysis.guard_failures import GuardFailure

    mode = parse_failure("0/1: self.training == True")
    again = GuardFailure("0/2", "x", "size", "dimension 0: now 2 (the guard was `3 <= x.size()[0]`)", None, None, "")
    group = recompiles._Group("forward (model.py:3)", [("0/1", parse_failure(_SHORT)), ("0/3", again)])
    calls = _compiles(v0_0=2, v0_1=1, v0_2=4, v0_3=2)  # 3 passes of 2 full batches, then the short one
    assert recompiles._last_batches(group, calls, {"0/2": mode}) == \
        recompiles._Passes(full=4, short=2, passes=3, batches=2)
    assert recompiles._last_batches(group, calls, {}) is None  # 0/2 compiled for what the run does not say
    assert recompiles._last_batches(group, _compiles(v0_0=2, v0_1=1, v0_2=5, v0_3=2), {"0/2": mode}) is None
    other = GuardFailure("0/2", "x", "size", "dimension 0: now 3 (the guard was `4 <= x.size()[0]`)", None, None, "")
    assert recompiles._last_batches(recompiles._Group("forward (model.py:3)", [
        ("0/1", parse_failure(_SHORT)), ("0/3", other)]), calls, {"0/2": mode}) is None  # another size: not the batch


@pytest.mark.pure
def test_a_new_batch_reaching_the_prefill_then_the_decoding_version_is_one_pattern():
    """0/3: the prompt batch 2 -> 3 (prefill); 0/4: the same change in a decoding step, which 0/3 refused for its
    keyword arguments: one cause, while the growing mask (0/2) is another."""
    from tracers.analysis.run_evidence import RunEvidence

    mask = parse_failure("0/1: tensor 'kwargs['attention_mask']' size mismatch at index 1. expected 6, actual 7")
    # the user's names for the argument differ at the two calls (``ids``, ``next_tok``); torch's is the same
    prefill = dataclasses.replace(parse_failure(
        "0/0: tensor 'kwargs['input_ids']' size mismatch at index 0. expected 2, actual 3"), subject="ids")
    decode = dataclasses.replace(parse_failure(
        "0/2: tensor 'kwargs['input_ids']' size mismatch at index 0. expected 2, actual 3"), subject="next_tok")
    groups = {("burst 1", "", "size"): recompiles._Group("forward", [("0/2", mask)]),
              ("burst 2", "", "size"): recompiles._Group("forward", [("0/3", prefill)]),
              ("burst 3", "", "size"): recompiles._Group("forward", [("0/4", decode)])}
    refused = parse_failure("0/3: len(L['kwargs']) == 3")
    evidence = RunEvidence(tried={"0/4": [refused, decode]})
    merged = recompiles._one_per_pattern(dict(groups), evidence)
    assert [[compile_id for compile_id, _ in group.failures] for group in merged.values()] == [["0/2"], ["0/3", "0/4"]]
    assert merged[("burst 2", "", "size")].other_calls == ["0/4"]
    # refused for its size, not its kind of call: a later size the dynamic version missed, no other-call merge
    alone = recompiles._one_per_pattern(dict(groups), RunEvidence(tried={"0/4": [decode]}))
    assert len(alone) == 3


def _resume_trace() -> object:
    """Frame records of a compiled ``step(model, x)`` called at train.py:30 that breaks at line 10, and of the
    resume function after it (called from line 10 of ``step``)."""
    from types import SimpleNamespace

    from tracers.tracefile.events import Artifact

    call = {"filename": "/home/u/train.py", "line": 30, "name": "<module>", "loc": "loss = step(model, images[i:i + 16])"}
    at_break = {"filename": "/home/u/train.py", "line": 10, "name": "step", "loc": "lam = float(np.random.beta(a, a))"}
    records = [("0/0", {"callers": [call], "passed": {"model": "model", "x": "images[i:i + 16]"}}),
               ("1/1", {"callers": [call, at_break]})]
    return SimpleNamespace(artifacts=[Artifact(index, "frame", "dynamo_start", compile_id, None, 1, index, metadata)
                                      for index, (compile_id, metadata) in enumerate(records)])


RESUME = "torch_dynamo_resume_in_step_at_10 (train.py:10)"


def test_a_resume_functions_recompile_is_placed_at_the_users_call_that_passed_the_argument():
    """The resume function is called at its break, which is no cause: a size change of the continued function's
    argument is said at the user's call that passed it."""
    failure = parse_failure("1/0: tensor 'x' size mismatch at index 0. expected 16, actual 4")
    user, library = recompiles._lines(_resume_trace(), failure, "1/1", RESUME)
    assert (user.line, user.code, library) == (30, "loss = step(model, images[i:i + 16])", None)
    # the same failure in the function's own frame keeps its caller
    assert recompiles._lines(_resume_trace(), failure, "0/0", "step (train.py:8)")[0].line == 30


def test_a_resume_functions_recompile_on_library_state_is_placed_at_the_users_line_in_its_stack():
    """A guard made inside a library the resumed code calls: the user's line in the guard's own stack, not the
    break the resume function starts at."""
    failure = parse_failure(
        "1/0: G['model'].config.problem_type is None  # if self.config.problem_type is None:  "
        "# transformers/models/roberta/modeling_roberta.py:954 in forward\nUser stack trace:\n"
        '  File "/home/u/train.py", line 12, in step\n    out = model(**batch)\n'
        '  File "<site-packages>/transformers/models/roberta/modeling_roberta.py", line 954, in forward\n'
        "    if self.config.problem_type is None:")
    user, library = recompiles._lines(_resume_trace(), failure, "1/1", RESUME)
    assert (user.line, user.code, library.short) == (12, "out = model(**batch)", "modeling_roberta.py:954")
    # an argument the user's call did not pass (a value computed before the break) keeps the break's line
    computed = parse_failure("1/0: ___stack1 == 0.34  # lam = float(np.random.beta(a, a))  # train.py:10 in step")
    assert recompiles._lines(_resume_trace(), computed, "1/1", RESUME)[0].line == 10


@pytest.mark.pure
def test_later_compiles_that_guard_a_branch_on_the_dynamic_value_are_said_as_the_branch():
    from tracers.analysis.run_evidence import RunEvidence

    side = parse_failure("1/1: ((1 + step) % 4) != 0  # if (step + 1) % ACCUM == 0:  # train.py:29 in step_fn")
    assert recompiles._branch_on(RunEvidence(failures={"1/2": side}), ["1/2"]) == (
        "((1 + step) % 4) != 0", " at train.py:29 (`if (step + 1) % ACCUM == 0:`)")
    grown = parse_failure("0/1: tensor 'x' size mismatch at index 1. expected 8, actual 9")
    assert recompiles._branch_on(RunEvidence(failures={"0/2": grown}), ["0/2"]) is None  # a size it missed
    assert recompiles._branch_on(RunEvidence(), []) is None


@pytest.mark.pure
def test_a_static_caches_length_guarded_as_a_number_is_told_max_cache_len():
    """generate() with cache_implementation="static" and max_new_tokens 8, 8, 12 (transformers 5.17 on an H200): the
    cache's max_cache_len value recompiles, and its keys' size: both findings give generate(max_cache_len=N)."""
    from tests.conftest import ROOT
    from tracers.tracefile.chrome import load

    trace = load(ROOT / "tests" / "data" / "cuda-2.11.0" / "generate_static-cuda-cold.json")
    told = [finding for finding in findings(trace) if finding.kind == "recompile" and "max_cache_len=N" in finding.fix]
    subjects = {re.search(r"the (?:value|size) of `([^`]+)`", finding.what).group(1) for finding in told}
    assert subjects == {"past_key_values.layers[0].max_cache_len", "past_key_values.layers[0].keys"}
