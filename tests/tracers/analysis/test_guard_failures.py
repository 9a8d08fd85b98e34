"""Guard failures read with the source grammar: names as the user wrote them, and dynamic only where the next
version's guards are symbolic (torch's own texts, as 2.13 prints them)."""

from __future__ import annotations

import pytest

from tracers.analysis.guard_failures import cause_of, made_dynamic, parse_failure

pytestmark = pytest.mark.pure


def test_a_keyword_argument_of_a_wrapper_is_said_by_its_keyword():
    failure = parse_failure("0/0: tensor 'kwargs['input_ids']' size mismatch at index 1. expected 64, actual 96")
    assert (failure.subject, failure.kind) == ("input_ids", "size")
    assert failure.change == "dimension 1: 64 before, now 96" and failure.source == "kwargs['input_ids']"


def test_a_positional_argument_of_a_wrapper_keeps_its_source_for_the_call_site():
    failure = parse_failure("0/0: tensor 'args[0]' size mismatch at index 0. expected 4, actual 2")
    assert failure.kind == "size" and failure.source == "args[0]"


def test_a_size_read_as_a_value_is_a_size_of_its_tensor():
    failure = parse_failure("1/0: b.size()[0] == 4  # c = a + b  # dynamic_shapes.py:42 in pair_sum")
    assert (failure.subject, failure.kind) == ("b", "size") and failure.said == "the size of `b` changed"


def test_a_list_length_a_grad_mode_and_a_passed_function():
    assert parse_failure("0/0: len(crops) == 2").kind == "length"
    assert parse_failure("0/0: len(crops) == 2").said == "the number of items in `crops` changed"
    grad = parse_failure("0/0: GLOBAL_STATE changed: grad_mode ")
    assert grad.kind == "global" and "torch.no_grad()" in grad.said
    code = parse_failure("0/0: CodeGuardAccessor: Not a function on activation.__code__")
    assert (code.subject, code.kind) == ("activation", "identity")


_PINNED = """\
| +- GuardManager: source=L['t'], accessed_by=FrameLocalsGuardAccessor(key='t', framelocals_idx=2), type=<class 'int'>
| | +- TYPE_MATCH: ___check_type_id(L['t'], 140115003669728), type=<class 'int'>  # x = t / T  # s.py:21 in f
+- LAMBDA_GUARD: L['t'] == 4  # mean = alphas[t]  # s.py:27 in p_sample (_dynamo/variables/lists.py:174)
"""
_SYMBOLIC = """\
| +- GuardManager: source=L['t'], accessed_by=FrameLocalsGuardAccessor(key='t', framelocals_idx=2), type=<class 'int'>
| | +- TYPE_MATCH: ___check_type_id(L['t'], 140115003669728), type=<class 'int'>  # x = t / T  # s.py:21 in f
+- LAMBDA_GUARD: 2 <= L['t']  # x = t / T  # s.py:21 in f
"""


def test_a_value_the_next_version_pins_again_was_specialised_not_made_dynamic():
    failure = parse_failure("0/6: t == 5  # mean = alphas[t]  # s.py:27 in p_sample")
    assert failure.kind == "value" and failure.subject == "t"
    assert not made_dynamic(_PINNED, failure)  # a shape guard ``L['t'] == 4``: a constant again
    assert made_dynamic(_SYMBOLIC, failure)  # only a range: the value is a symbol


def test_a_size_is_dynamic_where_the_tensor_check_leaves_it_open():
    failure = parse_failure("0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 2")
    dynamic = "| +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, " \
              "requires_grad=False, size=[None, 16], stride=[16, 1])"
    static = dynamic.replace("size=[None, 16]", "size=[2, 16]")
    assert made_dynamic(dynamic, failure) and not made_dynamic(static, failure)


def test_the_limit_said_is_the_running_torchs_default_and_versions_leave_out_the_refusal():
    """The distance to the recompile limit is said against torch's default (8 in 2.11-2.15); a compile the limit
    refused is no version."""
    import torch._dynamo.config as dynamo_config

    from tracers.analysis import recompiles
    from tracers.analysis.trace_facts import CompileFacts

    assert dynamo_config.recompile_limit == recompiles._DEFAULT_LIMIT
    frame = "Block.forward (model.py:3)"
    compiles = {f"0/{n}": CompileFacts(f"0/{n}", frame) for n in range(5)}
    compiles["0/5"] = CompileFacts("0/5", frame, fail_reason="cache_size_limit reached")
    compiles["1/0"] = CompileFacts("1/0", "other (model.py:9)")
    assert recompiles._versions(compiles)[frame] == 5



def test_a_number_computed_from_one_value_and_pinned_is_that_values_change():
    # a symbolic float reached an operator that needs a Python number: torch pins the expression, at that line
    failure = parse_failure("0/7: (1.0 + ((-1)*self.drop_prob)) == 0.8444  # mask = x.bernoulli_(keep)  "
                            "# blocks.py:12 in drop_path")
    assert (failure.subject, failure.kind, failure.computed) == ("self.drop_prob", "value", True)
    assert failure.line is not None and failure.line.line == 12
    assert failure.guard == "(1.0 + ((-1)*self.drop_prob)) == 0.8444"
    plain = parse_failure("0/2: self.depth_index == 1")
    assert (plain.subject, plain.kind, plain.computed) == ("self.depth_index", "value", False)
    # the next version pins the expression again: specialised, not dynamic
    assert not made_dynamic("| +- LAMBDA_GUARD: (1.0 + ((-1)*L['self'].drop_prob)) == 0.8222  # m", failure)


def test_a_version_failing_on_a_number_of_items_is_of_the_other_kind_of_call():
    # generate() passes the prompt's call one keyword fewer than a decoding step's: against the version of its own
    # kind (the prompt's), the new prompt's length is what changed
    reasons = [parse_failure("0/1: len(kwargs) == 7"),
               parse_failure("0/0: tensor 'kwargs['input_ids']' size mismatch at index 1. expected 6, actual 11")]
    assert cause_of(reasons, {"kwargs"}).subject == "input_ids"


def test_a_range_failure_takes_the_new_size_from_the_same_recompiles_other_failure():
    reasons = [parse_failure("0/1: 2 <= x.size()[0] <= 15"),
               parse_failure("0/0: tensor 'x' size mismatch at index 0. expected 32, actual 1")]
    chosen = cause_of(reasons, set())
    assert chosen.version == "0/1" and chosen.change.startswith("dimension 0: now 1 (")
    assert chosen.dimension == 0


def test_the_keys_of_a_dict_are_of_the_other_kind_of_call():
    # a version compiled with the optional key fails a call without it (KeyError) or the other way round: against
    # the version of the same keys, a hook's closure list that grew is what changed
    missing = parse_failure("0/1: KeyError on batch['weight']")
    assert (missing.subject, missing.kind) == ("batch", "keys") and missing.said == "the keys of `batch` changed"
    absent = parse_failure("0/0: not ___dict_contains('weight', batch)")
    assert absent.kind == "keys" and "held no key 'weight'" in absent.change
    grown = parse_failure("0/0: not self.mix._forward_hooks[list(self.mix._forward_hooks.keys())[0]].__closure__[0]"
                          ".cell_contents")
    assert cause_of([missing, grown], set()) is grown


def test_a_value_handed_across_a_break_is_said_by_the_line_that_computed_it():
    from tracers.analysis.breaks import _by_break_line
    from tracers.analysis.frames import SourceLine
    from tracers.analysis.user_names import stack_value_words

    assert stack_value_words("peak = h.abs().max().item()", 24, "0.6") == \
        "the number `h.abs().max().item()` returned (line 24)"
    # torch's guard records where the value is used (the logging line after the break), not where it was made
    used = parse_failure("1/0: ___stack0 == 0.63  # logger.info('peak %.3f', peak)  # t.py:25 in forward")
    said = _by_break_line(used, SourceLine("t.py", 24, "forward", "peak = h.abs().max().item()"), 24)
    assert said.subject == "the number `h.abs().max().item()` returned (line 24)"


def test_a_closure_cell_is_said_by_the_variable_torch_names_in_its_hint():
    hooked = "self._modules['mix']._forward_hooks[list(dict.keys(self._modules['mix']._forward_hooks))[0]]"
    failure = parse_failure(f"0/0: not {hooked}.__closure__[0].cell_contents  # h = lambda m, i, o: "
                            "captured.append(o)  # s.py:38 in <lambda> (HINT: guard on \"captured\")")
    assert (failure.subject, failure.kind) == ("captured", "length")
    assert failure.said == "the number of items in `captured` changed"
    plain = parse_failure(f"0/0: not {hooked}.__closure__[0].cell_contents  # captured.append(o)  # s.py:38 in <lambda>")
    assert "__closure__" in plain.subject  # no hint: torch's path stays, never a guessed name


def test_a_branch_on_a_number_made_from_a_dynamic_value_is_that_values_and_leaves_it_dynamic():
    """``if (step + 1) % ACCUM == 0:`` with ``step`` dynamic: torch guards which side it took, not the value."""
    failure = parse_failure("1/1: ((1 + step) % 4) != 0  # if (step + 1) % ACCUM == 0:  # train.py:29 in step_fn")
    assert (failure.subject, failure.kind, failure.change) == ("step", "value",
                                                               "the guard was `((1 + step) % 4) != 0`")
    guards = "| +- LAMBDA_GUARD: ((1 + L['step']) % 4) == 0  # if (step + 1) % ACCUM == 0:\n"
    assert made_dynamic(guards, parse_failure("1/0: L['step'] == 0  # step"))
    pinned = "| +- LAMBDA_GUARD: (1.0 + ((-1)*L['self'].p)) == 0.84  # F.dropout(x, 1 - self.p)\n"
    assert not made_dynamic(pinned, parse_failure("0/0: L['self'].p == 0.16  # p"))
