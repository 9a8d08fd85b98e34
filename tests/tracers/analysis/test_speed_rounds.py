"""The rounds rule on recorded numbers: each part cut into the same rounds on both sides, a verdict only where every
round agrees, "no difference measurable here" with the spread otherwise, the findings following the verdict, and the
payback said with its range. Pure: the numbers are made up, nothing is timed."""

from __future__ import annotations

import pytest

from tracers.analysis.speed import speed_of
from tracers.analysis.speed_findings import speed_findings
from tracers.analysis.spread import Compared, Spread, rounds
from tracers.tracefile.events import Trace
from tracers.tracefile.speed import NO_BACKWARD, SpeedRecord, TimedFunction, TimedRun

pytestmark = pytest.mark.pure

CALLS = 44  # 1 compiling + 3 warm-up + 40 steady: five rounds of eight


def _trace(compiled_steps: list[int], eager_steps: list[int], compile_ns: int = 10**9) -> Trace:
    """A compiled object called once a step, forward and backward constant, steps as given (one call more)."""
    calls = len(compiled_steps) + 1

    def timed(steps: list[int], compiling: bool) -> TimedFunction:
        host = (compile_ns if compiling else 1_000,) + (1_000,) * (calls - 1)
        return TimedFunction("train.py:9", 0, "Net", host, compiling=(0,) if compiling else (),
                             compile_ids=("0/0",) if compiling else (), backward_host_ns=(2_000,) * calls,
                             step_host_ns=tuple(steps))
    record = SpeedRecord(TimedRun("compiled", (timed(compiled_steps, True),)),
                         TimedRun("eager", (timed(eager_steps, False),)))
    trace = Trace.__new__(Trace)
    trace.info = type("Info", (), {"runtime": record.as_json()})()
    trace.artifacts, trace.spans = [], []
    return trace


def test_rounds_cut_the_steady_calls_in_order_into_nearly_equal_rounds():
    assert rounds(list(range(10))) == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    assert rounds(list(range(11))) == [[0, 1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]
    assert rounds(list(range(5))) == [[0, 1, 2], [3, 4]]  # two a round at least
    assert rounds([7]) == [[7]]  # one round: no spread measured


def test_a_verdict_only_where_every_round_agrees():
    def compared(eager: tuple[int, ...], compiled: tuple[int, ...]) -> Compared:
        return Compared(Spread(eager), Spread(compiled), 100.0, 80.0)

    assert compared((100, 110, 105), (80, 90, 85)).verdict == "faster"
    assert compared((100, 110, 105), (120, 130, 125)).verdict == "slower"
    assert compared((100, 110, 105), (90, 120, 100)).verdict == "even"
    assert compared((100,), (80,)).verdict is None  # one round: no spread, no verdict
    assert compared((100, 110), (80, 100)).range_text == "1.10–1.25×"


def test_rounds_that_disagree_say_no_difference_measurable_with_the_spread():
    # Compiled steps fast for four calls, slow for four: the rounds of eight straddle them and disagree.
    trace = _trace([100_000 if index % 8 < 4 else 160_000 for index in range(CALLS - 1)], [130_000] * (CALLS - 1))
    [function] = speed_of(trace).functions
    assert function.headline is function.step and function.per == "step"
    assert function.verdict == "even" and function.payback_calls is None
    assert function.verdict_said == f"no difference measurable here (spread {function.step.spread_text})"
    [finding] = speed_findings(trace)
    assert finding.kind == "never-pays-back" and "no difference measurable here (spread " in finding.what


def test_faster_in_every_round_pays_back_with_its_range():
    trace = _trace([100_000 + 1_000 * (index % 8) for index in range(CALLS - 1)], [200_000] * (CALLS - 1))
    [function] = speed_of(trace).functions
    assert function.verdict == "faster" and function.speedup > 1
    low, high = function.payback_range
    assert low <= function.payback_calls <= high
    assert function.verdict_said == (f"pays back after {function.payback_calls:,} steps ({low:,}–{high:,}), "
                                     "not in this run")
    [finding] = speed_findings(trace)
    assert finding.kind == "never-pays-back" and f"repaid after {function.payback_calls:,} steps" in finding.what
    assert "backward 2 µs vs 2 µs" in finding.what  # the parts say where the step's time came from


def test_slower_in_every_round_is_a_slower_finding_about_the_step():
    trace = _trace([300_000] * (CALLS - 1), [100_000] * (CALLS - 1))
    [function] = speed_of(trace).functions
    assert function.verdict == "slower" and function.verdict_said == "slower"
    [finding] = speed_findings(trace)
    assert finding.kind == "slower-than-eager" and "3.0× slower" in finding.what and "per step" in finding.what


def test_a_call_without_a_backward_is_left_out_of_the_backward():
    trace = _trace([100_000] * (CALLS - 1), [100_000] * (CALLS - 1))
    record = SpeedRecord.from_json(trace.info.runtime)
    compiled = record.compiled.functions[0]
    backward = list(compiled.backward_host_ns)
    backward[10] = NO_BACKWARD
    functions = (TimedFunction(**{**compiled.__dict__, "backward_host_ns": tuple(backward)}),)
    trace.info.runtime = SpeedRecord(TimedRun("compiled", functions), record.eager).as_json()
    [function] = speed_of(trace).functions
    assert function.backward.steady == function.forward.steady - 1


def test_too_few_steady_steps_give_no_ratio_and_no_verdict():
    trace = _trace([70_000_000] * 5, [464_000] * 5)  # 1 compiling call, 3 warm-up, 2 steady calls: 1 steady step
    [function] = speed_of(trace).functions
    assert function.speedup is not None and function.headline.ratio == "—"
    assert function.verdict_said == "no verdict: 1 steady step, 4 needed (two rounds)"
    assert speed_findings(trace) == []
