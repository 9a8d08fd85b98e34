"""Breaks and the values they hand on: a break that exists only because a value was symbolic in the compiled version
(an operator argument that must be a Python bool, an f-string formatting a number Dynamo made a symbol after it
changed between calls), and a number a break's line read out of a tensor that a later resume function recompiles on."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tracers.analysis.breaks import _symbols_at
from tracers.analysis.frames import SourceLine
from tracers.analysis.guard_failures import parse_failure
from tracers.analysis.symbolic_breaks import symbolic_advice, symbolic_breaks
from tracers.tracefile.events import Artifact

pytestmark = pytest.mark.pure

_FORMAT = ("Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to "
           "eager. Graph break encountered:\n\nBUILD_STRING type error\n  Explanation: Format string part type is not "
           "correct - expected constant or format string.\n  Hint: Your code may result in an error when running in "
           "eager.\n\n  Developer debug context: SymNodeVariable()\n")
_LINE = 'print(f"  step loss {loss.item():.4f} lr {lr:.2e}")'


def _symbol(index: int, source: str, value: str, line: int = 41) -> Artifact:
    return Artifact(index, "shapes", "create_symbol", "2/1", None, 1, index, {
        "symbol": f"zf{index}", "val": value, "source": source,
        "user_frame": {"filename": "train.py", "line": line, "name": "torch_dynamo_resume_in_train_step_at_41",
                       "loc": _LINE}})


def test_an_f_string_of_a_symbolic_number_is_a_symbolic_break_with_the_values_named():
    broke = Artifact(9, "break", "dynamo_graph_break_reason", "2/1", None, 1, 9, {"location": "train.py:41"}, _FORMAT)
    [found] = symbolic_breaks([broke])
    assert found.formatted and found.compile_id == "2/1" and found.location == "train.py:41"
    trace = SimpleNamespace(artifacts=[_symbol(1, "L['___stack2']", "1.0968"), _symbol(2, "L['lr']", "0.00015"),
                                       _symbol(3, "L['other']", "3.0", line=50), broke])
    names = _symbols_at(trace, "2/1", SourceLine("train.py", 41, "train_step", _LINE))
    assert names == "the number `loss.item()` returned and `lr`"
    advice = symbolic_advice(found, _LINE, names)
    assert advice.startswith("At train.py:41, the number `loss.item()` returned and `lr` went into an f-string")
    assert "made them symbolic" in advice and "log it after the call" in advice
    assert "Your code may result in an error" not in advice


def test_an_operator_argument_break_keeps_its_own_advice():
    wrong = Artifact(1, "break", "dynamo_graph_break_reason", "0/3", None, 1, 1, {"location": "m.py:25"},
                     "TypeError when making fake tensor call: argument 'is_causal' must be bool, not SymBool")
    [found] = symbolic_breaks([wrong])
    assert not found.formatted and found.said.startswith("`is_causal` must be a Python bool")
    assert "is_causal=True … else" in symbolic_advice(found, "y = sdpa(q, k, v, is_causal=(T > 1))")


def test_a_local_the_break_line_assigned_joins_that_break_when_a_later_resume_function_recompiles_on_it():
    """``n_tokens = mask.sum().item()`` breaks at line 30; the code after a later break (line 35) is handed n_tokens
    and recompiles on its value: that recompile is line 30's doing."""
    from tracers.analysis.breaks import BreakGroup, merge_stack_recompiles
    from tracers.analysis.trace_facts import CompileFacts

    item = Artifact(1, "break", "dynamo_graph_break_reason", "0/0", None, 1, 1,
                    {"title": "Unsupported Tensor.item() call with capture_scalar_outputs=False"})
    shape = Artifact(2, "break", "dynamo_graph_break_reason", "1/0", None, 1, 2, {"title": "Dynamic shape operator"})
    read = BreakGroup([item], SourceLine("/home/u/loss.py", 30, "compute_loss",
                                         "n_tokens = (labels != -100).sum().item()"), None, False)
    masked = BreakGroup([shape], SourceLine("/home/u/loss.py", 35, "compute_loss",
                                            "loss = smooth[mask].sum() / n_tokens"), None, False)
    failure = parse_failure("2/0: L['n_tokens'] == 76")
    compiles = {"2/1": CompileFacts("2/1", "torch_dynamo_resume_in_compute_loss_at_35 (loss.py:35)", graphs=1)}
    assert merge_stack_recompiles([read, masked], {"2/1": failure}, compiles) == {"2/1"}
    assert list(read.merged) == ["2/1"] and not masked.merged
    other = parse_failure("2/0: L['eps'] == 0.1")  # not what line 30 assigned
    read.merged.clear()
    assert merge_stack_recompiles([read, masked], {"2/1": other}, compiles) == set()


def test_the_config_fields_a_broken_compile_read_as_unset_are_read_from_its_guards():
    from tracers.analysis.breaks import _unset_config
    from tracers.analysis.run_evidence import gather

    guards = ("| +- NONE_MATCH: L['self'].config.problem_type is None  # if self.config.problem_type is None:\n"
              "| +- EQUALS_MATCH: L['self'].config.pooler_hidden_act == 'gelu'  # act = ...\n"
              "| +- NONE_MATCH: L['self'].cache is None  # not the config\n")
    trace = SimpleNamespace(artifacts=[Artifact(1, "guards", "dynamo_cpp_guards_str", "0/0", None, 1, 1, {}, guards),
                                       Artifact(2, "guards", "dynamo_cpp_guards_str", "3/0", None, 1, 2, {}, guards)],
                            info=SimpleNamespace(calls_served={}))
    evidence = gather(trace, {})  # the run's guards read where the findings read them
    assert _unset_config(evidence, ("0/0", "1/0")) == ["self.config.problem_type"]
    assert _unset_config(evidence, ("1/0",)) == []


def test_a_break_dynamo_cannot_resume_after_says_the_rest_of_the_function_ran_eagerly():
    from tracers.analysis.breaks import BreakGroup
    from tracers.analysis.trace_facts import CompileFacts

    reason = ("Encountered graph break that we cannot resume from. Compiling up to the previous resumable state, then "
              "skipping the rest of the function. Graph break encountered:")
    broke = [Artifact(index, "break", "dynamo_graph_break_reason", compile_id, None, 1, index,
                      {"location": "gru.py:14", "reason": reason, "title": "Attempted to wrap RNN, GRU, or LSTM"})
             for index, compile_id in enumerate(("0/0", "0/1"))]
    group = BreakGroup(broke, SourceLine("/home/u/gru.py", 14, "forward", "out, h = self.gru(f, h)"), None, False)
    trace = SimpleNamespace(artifacts=broke, info=SimpleNamespace(calls_served={"0/0": 8, "0/1": 22}, calls_eager={},
                                                                  calls_note=None))
    compiles = {compile_id: CompileFacts(compile_id, "Forecaster.forward (gru.py:12)", graphs=1)
                for compile_id in ("0/0", "0/1")}
    finding = group.finding(trace, compiles)
    assert finding.what.endswith("that Dynamo cannot resume after: line 14 and the rest of the function ran eagerly")
    assert "each of the 30 calls its versions served ran line 14 and the rest of the function eagerly" in finding.parts[0]


def test_a_library_break_in_a_codes_first_version_only_is_the_libraries_first_call_set_up():
    """transformers installs its output-capturing hooks on the first call: 0/0 breaks there, and the later versions
    of the same code (a new size each) compile without it."""
    from tracers.analysis.breaks import BreakGroup, FirstCall, first_call_only
    from tracers.analysis.trace_facts import CompileFacts

    broke = [Artifact(1, "break", "dynamo_graph_break_reason", "0/0", None, 1, 1, {"location": "capturing.py:239"})]
    group = BreakGroup(broke, SourceLine("/home/u/feat.py", 15, "embed", "out = model(wave)"),
                       SourceLine("/venv/transformers/utils/capturing.py", 239, "install", "with lock:"), False)
    compiles = {compile_id: CompileFacts(compile_id, "embed (feat.py:12)", graphs=1) for compile_id in ("0/0", "0/1", "0/2")}

    size = parse_failure("0/0: tensor 'L['wave']' size mismatch at index 1. expected 4000, actual 4800")
    sizes = {"0/1": size, "0/2": parse_failure("0/1: 60 <= L['wave'].size()[1] <= 6409")}
    assert first_call_only(group, sizes, compiles) == FirstCall("0", ["0/1", "0/2"])
    again = BreakGroup(broke + [Artifact(2, "break", "dynamo_graph_break_reason", "0/1", None, 1, 2, {})], group.user,
                       group.library, False)
    assert first_call_only(again, sizes, compiles) is None  # it broke in a later version too: every call runs it
    assert first_call_only(group, sizes, {"0/0": compiles["0/0"]}) is None  # no later version: nothing shows it
    # a later version for evaluation may just not take the path that breaks: no first-call claim
    modes = {"0/1": parse_failure("0/0: GLOBAL_STATE changed: grad_mode"), "0/2": sizes["0/2"]}
    assert first_call_only(group, modes, compiles) is None
    # a new size of the broken version's own calls, beside an evaluation's version: the size's version says it
    beside = {"0/1": size, "0/2": parse_failure("0/0: GLOBAL_STATE changed: grad_mode")}
    assert first_call_only(group, beside, compiles) == FirstCall("0", ["0/1"])
