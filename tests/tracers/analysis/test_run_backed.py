"""Findings whose words the run itself backs (issue 51, blind round 3's lessons), on small programs traced once:
a break on a symbolic argument, options toggled by the caller, a layer picked by an int, torch.optim's own breaks,
and a recompile whose cause is read from its failures against every version."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.analysis.findings import findings
from tracers.analysis.guard_failures import cause_of, parse_failure

from tests.conftest import run_trace, side_by_side

pytestmark = pytest.mark.torch

PROGRAMS = Path(__file__).resolve().parents[2] / "programs" / "findings"
_NAMES = ("symbolic_flag", "options_toggle", "optim_step", "grad_then_size", "library_causes", "decode_cache",
          "library_compiles", "grad_at_limit", "unfreeze",
          "generate_through_wrapper", "sweep_models", "compiled_collate", "eval_two_functions", "set_up_once",
          "library_state")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each program traced once with aot_eager."""
    out = tmp_path_factory.mktemp("run-backed")
    traced = side_by_side({name: lambda name=name: run_trace(PROGRAMS / f"{name}.py", out, "--no-page")
                           for name in _NAMES})
    for name, run in traced.items():
        assert run.returncode == 0, f"{name}: {run.stderr[-2000:]}"
    return traced


@pytest.fixture(scope="module")
def found(runs: dict) -> dict[str, list]:
    return {name: findings(run.trace()) for name, run in runs.items()}


def _one(found: list, kind: str, words: str):
    matching = [finding for finding in found if finding.kind == kind and words in finding.what]
    assert len(matching) == 1, [finding.what for finding in found]
    return matching[0]


def test_a_break_on_a_symbolic_argument_says_so_and_refutes_torchs_eager_hint(found):
    symbolic = next(finding for finding in found["symbolic_flag"] if finding.kind in ("graph-break", "frame-skipped"))
    assert symbolic.user_line.short == "symbolic_flag.py:16"
    assert "`is_causal` must be a Python bool and got a symbolic bool (SymBool)" in symbolic.fix
    assert "is_causal=True" in symbolic.fix and "is_causal=False" in symbolic.fix
    assert "not passed on" in symbolic.hint_note


def test_no_advice_makes_sizes_dynamic_where_a_dynamic_version_broke_on_a_symbol(found):
    for finding in found["symbolic_flag"]:
        assert "mark_dynamic" not in finding.fix and "dynamic=True" not in finding.fix, finding.fix
        assert all(remedy.value is not True for remedy in finding.remedies if remedy.name == "dynamic")
    recompile = _one(found["symbolic_flag"], "recompile", "the size of `x` changed, then Dynamo compiled it as dynamic")
    assert "Making sizes dynamic is not the fix in this run" in recompile.fix
    # the decode step's size of 1 is a cause of its own (a constant version), not the second prompt's (round 5)
    decode = [finding for finding in found["symbolic_flag"] if finding.kind == "recompile" and finding is not recompile]
    assert len(decode) == 1 and "The new size is 1" in decode[0].fix and "as dynamic" not in decode[0].what
    assert not any(claim.kind == "dynamic-safe" for claim in recompile.claims)  # refuted: its fallback said


def test_options_are_one_finding_each_and_never_told_to_become_tensors(found):
    flag = _one(found["options_toggle"], "recompile", "`return_tuple` changed")
    assert "a True/False option" in flag.fix and "A tensor cannot stand in for it" in flag.fix
    text = _one(found["options_toggle"], "recompile", "`reduction` changed")
    assert "an option given as a string" in text.fix
    for finding in (flag, text):
        assert "Hold the value in a tensor" not in finding.fix and "as dynamic" not in finding.what


def test_a_layer_picked_by_an_int_is_told_to_pass_the_layer(found):
    index = _one(found["options_toggle"], "recompile", "`i` changed")
    assert "picks a module out of a ModuleList or Sequential" in index.fix
    assert "Pass the module itself in" in index.fix and "one-element tensor" not in index.fix


def test_torch_optim_breaks_tell_a_compiled_step_from_an_eager_wrapper(found):
    step = next(finding for finding in found["optim_step"]
                if finding.kind == "graph-break" and "Adam.step" in (finding.explanation or ""))
    assert "`Adam.step` itself then compiled as a frame of its own" in step.fix
    assert "moving the call out of the compiled function would run `Adam.step` eagerly" in step.fix
    assert "Avoid calling" not in step.fix and "by design" in step.hint_note


def test_a_recompile_is_filed_under_what_the_call_changed_not_the_other_modes_guard(found):
    size = _one(found["grad_then_size"], "recompile", "the size of")
    grad = _one(found["grad_then_size"], "recompile", "grad mode")
    assert size.compile_ids == ("0/2",) and grad.compile_ids == ("0/1",)


def test_two_library_lines_behind_one_call_are_two_causes_each_said_as_the_librarys(found):
    branch = _one(found["library_causes"], "graph-break", "Data-dependent branching")
    logging = _one(found["library_causes"], "graph-break", "logging.Logger")
    assert branch.library_line.short == "fakelib/__init__.py:37" and logging.library_line.short == "fakelib/__init__.py:11"
    assert branch.user_line.short == logging.user_line.short == "library_causes.py:18"
    assert "The break is in the code of fakelib at fakelib/__init__.py:37 (`if labels.max() >=" in branch.fix
    assert "`logger.warning`" in logging.fix


def test_a_prompt_then_single_tokens_is_not_a_change_for_one_call(found):
    single = _one(found["decode_cache"], "recompile", "the size of `x` changed")
    assert "for one call only" not in single.fix and "torch never makes a size of 0 or 1 symbolic" in single.fix
    assert not any(claim.kind == "served-once" for claim in single.claims)
    cache = _one(found["decode_cache"], "recompile", "`self.cache['k']`")
    assert "compiled it as dynamic" in cache.what


def test_a_library_that_compiled_for_the_user_is_said_first_with_the_users_line(runs):
    run = runs["library_compiles"]
    said = ("compiled by fakelib's `fit` (through fakeaccel), not by your code: torch.compile(`Net.__call__`, "
            "backend='aot_eager') at fakeaccel/__init__.py:")
    summary = run.stderr  # the summary goes to stderr, the script's output to stdout
    assert said in summary and "reached from your line library_compiles.py:24 (`losses = fakelib.fit(" in summary
    assert summary.index(said) < summary.index("Findings")
    assert "compiled by" not in runs["decode_cache"].stderr  # the user's own torch.compile is not said so
    (dynamic,) = [finding for finding in findings(run.trace()) if finding.kind == "recompile"]
    assert "Fakelib, through fakeaccel, made this compile itself" in dynamic.fix and "mark_dynamic" not in dynamic.fix


def test_grad_mode_versions_that_fill_the_runs_limit_are_not_nothing_to_fix(found):
    grad = _one(found["grad_at_limit"], "recompile", "grad mode")
    assert "the most this run allows (4)" in grad.fix and not grad.fix.startswith("Nothing to fix")
    assert any(remedy.name == "torch._dynamo.config.recompile_limit" for remedy in grad.remedies)
    # torch names the frame ``Linear.forward (linear.py:130) via inner (…)``: its torch.compile call is still found
    size = _one(found["grad_at_limit"], "recompile", "the size of")
    assert "torch.compile(..., dynamic=False) at grad_at_limit.py:11 keeps every size static" in size.fix


def test_the_cause_of_a_recompile_skips_versions_of_another_mode_and_values_seen_varying():
    reasons = [parse_failure("1/2: GLOBAL_STATE changed: grad_mode "),
               parse_failure("1/0: tensor 'logits' size mismatch at index 1. expected 10, actual 14"),
               parse_failure("1/1: GLOBAL_STATE changed: grad_mode ")]
    assert cause_of(reasons, set()).version == "1/0"
    seen = {"x", "L['x']"}
    later = [parse_failure("0/2: tensor 'x' size mismatch at index 1. expected 1, actual 7"),
             parse_failure("0/0: L['self'].config.problem_type == None  # if self.config.problem_type is None:  "
                           "# m.py:9 in forward")]
    assert cause_of(later, seen).version == "0/0"  # the size had varied before: the new thing is the config


def test_dict_key_and_not_a_tensor_guards_are_read():
    key = parse_failure("0/1: ___dict_contains('k', self._modules['attn'].cache)  # if \"k\" in self.cache:  "
                        "# m.py:20 in forward")
    assert (key.subject, key.kind) == ("self.attn.cache", "keys")
    assert key.change == "it held the key 'k' when version 0/1 was compiled"
    batch = parse_failure("0/2: expected type of 'batch' to be a tensor type, ' but found <class 'dict'>")
    assert (batch.subject, batch.kind, batch.change) == ("batch", "type", "a tensor before, now dict")


def test_an_alignment_guard_is_said_as_a_multiple_without_torchs_spelling():
    for reason in ("0/1: (kwargs['input_ids'].size()[1] % 8) == 0", "0/1: Eq(Mod(L['input_ids'].size()[1], 8), 0)"):
        failure = parse_failure(reason)
        assert (failure.subject, failure.kind) == ("input_ids", "size")
        assert failure.change == "a multiple of 8 when version 0/1 was compiled, not now"


def test_layers_unfrozen_in_stages_are_one_finding_about_the_trainable_parameters(found):
    (trainable,) = [finding for finding in found["unfreeze"] if finding.kind == "recompile"]
    assert "the parameters' requires_grad changed" in trainable.what and trainable.events == 2
    assert "each set of trainable parameters compiles its own version" in trainable.fix


def test_generate_through_what_torch_compile_returned_is_not_a_clean_bill(found):
    (bypass,) = [finding for finding in found["generate_through_wrapper"] if finding.kind == "uncompiled-method"]
    assert not bypass.informational and bypass.user_line.short == "generate_through_wrapper.py:27"
    assert bypass.what.startswith("`compiled.generate(...)` called `TinyLM.generate` of the original model")
    assert "Compile the model in place instead" in bypass.fix
    assert "Its calls of the model then compile, at a cost this run did not pay" in bypass.fix  # generate's


def test_models_compiled_one_by_one_at_one_line_share_one_limit_said_once_with_isolation(found):
    (shared,) = [finding for finding in found["sweep_models"] if finding.kind.startswith("recompile")]
    assert shared.what.startswith("the 9 objects compiled from `Repeated(depth)` at sweep_models.py:19 share the code "
                                  "of `Repeated.forward`")
    assert shared.user_line.short == "sweep_models.py:19" and shared.kind == "recompile-limit"
    assert shared.eager_calls == 2  # the ninth model's two calls, through a wrapper made after the limit was hit
    assert {remedy.name for remedy in shared.remedies} == {"isolate_recompiles", "torch._dynamo.config.recompile_limit"}


def test_a_compiled_collate_is_one_finding_about_its_list_of_examples(found):
    (items,) = [finding for finding in found["compiled_collate"] if finding.kind == "recompile"]
    assert "the items of `examples` changed" in items.what and "leave it uncompiled" in items.fix


def test_one_evaluation_under_no_grad_is_one_finding_for_every_function_it_reaches(found):
    (grad,) = [finding for finding in found["eval_two_functions"] if finding.kind == "recompile"]
    assert grad.what.startswith("grad mode") and "2 frames recompiled for it" in grad.what


def test_a_librarys_first_call_set_up_is_one_finding_with_its_frames_breaks_and_recompiles(found):
    """The lock's break, the hook-registering frame's own breaks, its recompile for each layer's name and the forward's
    recompile for the flipped flag: one cause, which an eager first call removes (applied by hand: 0 breaks, and
    only the size recompile left)."""
    (set_up,) = [finding for finding in found["set_up_once"] if finding.kind in ("graph-break", "frame-skipped")]
    assert "Run that first call eagerly" in set_up.fix
    assert {"0/0", "0/1", "2/0", "2/1"} <= set(set_up.compile_ids)
    said = " ".join(set_up.parts)
    assert "the value of `key` changed" in said and "the value of `self.installed` changed" in said
    (size,) = [finding for finding in found["set_up_once"] if finding.kind == "recompile"]
    assert "the size of `x` changed" in size.what and size.compile_ids == ("0/2",)


def test_a_flag_of_an_object_the_librarys_loop_passed_is_the_librarys_doing(found):
    """generate()'s cache filled after its first step (blind round 10's Marian): no option of the user's to hold."""
    (flag,) = [finding for finding in found["library_state"] if finding.kind == "recompile"]
    assert "the value of `cache.filled` changed" in flag.what
    assert "state of an object that the code of fakelib passed in" in flag.fix and "nothing to fix" in flag.fix
    assert "keep it the same between calls" not in flag.fix
