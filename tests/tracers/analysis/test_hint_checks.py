"""torch's vague hints made into fixes a user can paste, and the tracer can apply to check them."""

from __future__ import annotations

import dataclasses

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


def _numpy_break(line: int, code: str) -> Finding:
    return Finding("graph-break", "2 graph breaks: Data dependent operator", 2, (f"{line}/0",), 0.01,
                   user_line=SourceLine("/home/u/metrics.py", line, "f1_score", code), graph_break_id="GB0033",
                   hint="Enable tracing of data-dependent output operators with "
                        "`torch._dynamo.config.capture_scalar_outputs = True`")


def test_breaks_of_one_kind_at_lines_of_one_function_are_one_finding():
    found = checked_hints([_numpy_break(14, "tp = float(np.sum(a))"), _numpy_break(15, "fp = float(np.sum(b))"),
                           _numpy_break(16, "fn = float(np.sum(c))")])
    [finding] = found
    assert finding.events == 6 and finding.user_line.line == 14
    assert finding.what == "6 graph breaks: Data dependent operator, at lines 14, 15 and 16 of `f1_score`"
    assert finding.parts[:3] == ("line 14 (`tp = float(np.sum(a))`)", "line 15 (`fp = float(np.sum(b))`)",
                                 "line 16 (`fn = float(np.sum(c))`)")
    [remedy] = finding.remedies
    assert remedy.name == "torch._dynamo.config.capture_scalar_outputs"


def test_breaks_of_two_kinds_in_one_function_stay_two():
    printing = _break('print("mean", y.mean())', _PRINT_HINT)
    assert len(checked_hints([_numpy_break(14, "tp = float(np.sum(a))"), printing])) == 2


_LOGGING_HINT = "Add the logging method to `torch._dynamo.config.ignore_logging_functions`."


def test_a_librarys_logging_break_gives_the_line_to_paste_by_its_module_and_shows_the_librarys_line():
    found = dataclasses.replace(
        _break("loss = model(ids, labels=ids).loss", _LOGGING_HINT),
        library_line=SourceLine("<site-packages>/transformers/modeling_utils.py", 4778, "loss_function",
                                "logger.warning_once("))
    (checked,) = checked_hints([found], frozenset())
    assert "`logger.warning_once` (modeling_utils.py:4778: `logger.warning_once(…`)" in checked.advice
    assert ("`import transformers.modeling_utils`, then `torch._dynamo.config.ignore_logging_functions.add("
            "transformers.modeling_utils.logger.warning_once)`") in checked.advice
    assert [(remedy.kind, remedy.name) for remedy in checked.remedies] == [("ignore-logging", "logger.warning_once")]


def test_the_users_own_logging_break_gives_its_own_name_to_paste():
    (checked,) = checked_hints([_break('logger.info("step %d", step)', _LOGGING_HINT)], frozenset())
    assert "`torch._dynamo.config.ignore_logging_functions.add(logger.info)`" in checked.advice
    assert "import " not in checked.advice


def test_a_value_handed_across_a_break_is_told_to_come_in_as_a_tensor():
    from tracers.analysis.breaks import _passed_in
    from tracers.analysis.guard_failures import parse_failure

    advice = _passed_in({"1/1": parse_failure("1/0: L['lam'] == 0.34029683942911143")})
    assert "pass it as a tensor (`torch.tensor(value)`)" in advice and "1/1 was compiled for another value" in advice
    assert _passed_in({"1/1": parse_failure("1/0: tensor 'x' size mismatch at index 0. expected 4, actual 2")}) == ""


_ITEM_HINT = ("Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` "
              "to include these operations in the captured graph.")


def test_a_capture_hint_at_a_line_that_also_breaks_for_another_reason_is_not_passed_on_as_the_fix():
    both = Finding("graph-break", "2 graph breaks: Unsupported Tensor.item() call with capture_scalar_outputs=False; "
                                  "Failed to trace builtin operator", 2, ("1/0", "2/0"), 0.0,
                   user_line=SourceLine("/home/u/train.py", 41, "train_step", 'print(f"loss {loss.item():.4f}")'),
                   hint=_ITEM_HINT)
    [finding] = checked_hints([both])
    assert "covers the data-dependent break only" in finding.hint_note
    assert "(Failed to trace builtin operator)" in finding.hint_note
    alone = dataclasses.replace(both, what="1 graph break: Unsupported Tensor.item() call with "
                                           "capture_scalar_outputs=False", events=1)
    assert not (checked_hints([alone])[0].hint_note or "")  # the item break alone: the hint is its fix


def test_an_rnn_fed_a_packed_sequence_is_told_to_drop_the_packing_and_allow_rnn_together():
    pack = Finding("graph-break", "2 graph breaks: Attempted to call function marked as skipped", 2, ("0/0",), 0.2,
                   user_line=SourceLine("/home/u/lm.py", 25, "forward",
                                        "packed = pack_padded_sequence(e, lengths, batch_first=True)"),
                   hint="Avoid calling the function `pack_padded_sequence`.")
    rnn = Finding("frame-skipped", "Dynamo could not resume after a graph break (Attempted to wrap RNN, GRU, or LSTM) "
                                   "and ran the whole frame eagerly", 1, ("1/0",), 0.0,
                  user_line=SourceLine("/home/u/lm.py", 26, "forward", "out, _ = self.lstm(packed)"),
                  hint="Set torch._dynamo.config.allow_rnn=True to enable experimental support for RNN, GRU, and LSTM")
    packed, lstm = checked_hints([pack, rnn])
    assert "without `pack_padded_sequence` (at lm.py:25)" in lstm.advice and "allow_rnn = True" in lstm.advice
    assert "PackedSequence made at lm.py:25" in lstm.hint_note
    assert packed.advice.startswith("Call `pack_padded_sequence` outside") and "at lm.py:26" in packed.advice
    unpacked = dataclasses.replace(rnn, user_line=SourceLine("/home/u/lm.py", 26, "forward", "out, _ = self.lstm(e)"))
    assert checked_hints([pack, unpacked])[1].advice is None  # another input: torch's hint stands


def test_allow_rnn_is_said_with_its_cost_an_unrolled_graph():
    """Applied in a blind round, allow_rnn made the compile 20 times longer: the finding says why before it is tried."""
    rnn = Finding("frame-skipped", "Dynamo could not resume after a graph break (Attempted to wrap RNN, GRU, or LSTM) "
                                   "and ran the whole frame eagerly", 1, ("0/0",), 0.1,
                  user_line=SourceLine("/home/u/forecast.py", 20, "forward", "out, h = self.gru(f, h)"),
                  hint="Set torch._dynamo.config.allow_rnn=True to enable experimental support for RNN, GRU, and LSTM")
    [said] = checked_hints([rnn])
    assert "once per time step" in said.hint_note and "measure before keeping it" in said.hint_note
    other = dataclasses.replace(rnn, hint="Avoid calling the function `pack_padded_sequence`.")
    assert not checked_hints([other])[0].hint_note


def test_a_library_line_that_breaks_two_ways_is_one_finding_led_by_the_frame_it_sent_to_eager():
    """``with torch.backends.cudnn.flags(...)`` in a library's loss: the call returns no tensor in one frame, and the
    `with` sends another frame to eager: one statement, one cause."""
    at = dict(user_line=SourceLine("/home/u/train.py", 22, "step", "out = model(x, labels=y)"),
              library_line=SourceLine("/venv/site-packages/transformers/loss/loss_ctc.py", 53, "ctc",
                                      "with torch.backends.cudnn.flags(enabled=False):"))
    call = Finding("graph-break", "2 graph breaks: torch.* op returned non-Tensor", 2, ("21/0", "21/1"), 0.01, **at)
    skip = Finding("frame-skipped", "Dynamo could not resume after a graph break (Unsupported context manager) and "
                                    "ran the whole frame eagerly", 1, ("22/0",), 0.02, **at)
    [one] = checked_hints([call, skip])
    assert one.kind == "frame-skipped" and one.events == 3 and one.compile_ids == ("21/0", "21/1", "22/0")
    assert one.what.endswith("and 2 more graph breaks at the same line (torch.* op returned non-Tensor)")
    elsewhere = dataclasses.replace(skip, library_line=dataclasses.replace(at["library_line"], line=48))
    assert len(checked_hints([call, elsewhere])) == 2  # another line of the same library: its own cause
