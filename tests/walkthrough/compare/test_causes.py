"""Causes matched by what they are, over every run: a moved line is no change, a spread is no change, a real change is
said once with both releases' words; the dominant stage only where every run agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.terminal.style import Style
from tracers.tracefile.chrome import load
from walkthrough.compare.causes import Cause, compare_causes, normalized
from walkthrough.compare.compute import Traced, code_key, comparison
from walkthrough.compare.dominant import dominant_statement
from walkthrough.compare.model import ReleaseSide, Run
from walkthrough.compare.page import render_comparison
from walkthrough.compare.said import is_change, sentence
from walkthrough.compare.summary import render

pytestmark = pytest.mark.pure

RECORDED = Path(__file__).resolve().parent / "recorded"


def _side(folder: Path, release: str) -> Traced:
    paths = sorted(folder.glob("run*/*-cpu-cold.json"))
    traces = [load(path) for path in paths]
    runs = tuple(Run(0, str(path), "", 0.0) for path in paths)
    info = traces[0].info
    return Traced(ReleaseSide(release, info.torch_version, info.torch_git_sha, "python", runs, "CPU"), traces)


def test_two_recorded_runs_per_side_where_only_lines_moved_report_no_change():
    a, b = _side(RECORDED / "line_moved" / "a", "A"), _side(RECORDED / "line_moved" / "b", "B")
    assert len(a.traces) == len(b.traces) == 2
    result = comparison("counter.py", "cpu", "cold", a, b)
    assert result.causes and not [change for change in result.causes if is_change(change)]
    kinds = {change.kind: change for change in result.causes}
    assert set(kinds) == {"recompile", "graph-break"}
    for change in result.causes:  # the same cause, at another line, said once as the same
        assert change.change == "same" and change.moved and change.a_line != change.b_line
        assert change.code == "counter.py step"
    assert kinds["recompile"].a_events == kinds["recompile"].b_events == (3, 3)
    text = render(result, Style(False))
    assert "none: every cause is the same under both releases" in text
    assert "appeared" not in text and "went away" not in text
    assert "which is no change" in text
    # Compile time by the user's functions: a def that moved is the same function, not one gone and one new.
    assert not any(row.a is None or row.b is None for row in result.code)
    assert {row.key for row in result.code} == {"step (counter.py)", "step, after a graph break (counter.py)"}


def _cause(kind="recompile", code="prog.py step", source="y = x * SCALE.get()", reason="", line="prog.py:12",
           reasons=(), events=2) -> Cause:
    return Cause(kind, code, source, normalized(reason or " | ".join(reasons)), line, f"{kind} at {line}",
                 tuple(reasons), events, 0.5)


def test_a_recompile_that_really_appears_is_said_once_with_both_releases_reasons():
    old = ["the value of `calls` changed (it was 0 when the version before was compiled)"]
    new = ["the value of `SCALE.get()` changed (it was 1.0 when the version before was compiled)"]
    a = [[_cause(reasons=tuple(old), events=1)] for _ in range(3)]
    b = [[_cause(reasons=tuple(old), events=1, line="prog.py:13"),
          _cause(code="prog.py step", source="y = x * SCALE.get()", reasons=tuple(new), line="prog.py:13")]
         for _ in range(3)]
    changes = compare_causes(a, b)
    said = [change for change in changes if is_change(change)]
    assert len(said) == 1 and said[0].change == "appeared"
    assert [change.change for change in changes if not is_change(change)] == ["same"]  # the old one moved a line
    # One cause of a kind in one code under each release, with other words: one change, both releases' reasons.
    changed = compare_causes([[_cause(reasons=tuple(old))]] * 3, [[_cause(reasons=tuple(new))]] * 3)
    assert [change.change for change in changed] == ["changed"]
    text = sentence(changed[0], "2.13.0", "2.14.1")
    assert text.count("recompile") == 1 and old[0] in text and new[0] in text
    assert text.index("under 2.13.0") < text.index(old[0]) < text.index("under 2.14.1") < text.index(new[0])


def test_a_cause_found_in_some_runs_only_is_within_the_spread_not_a_change():
    a = [[_cause(kind="cache-miss", reasons=("a miss",))], [], [_cause(kind="cache-miss", reasons=("a miss",))]]
    b: list[list[Cause]] = [[], [], []]
    (change,) = compare_causes(a, b)
    assert change.change == "varies" and not is_change(change)
    assert change.a_events == (2, 0, 2) and change.b_events == (0, 0, 0)
    assert "within the run-to-run spread, not a change" in sentence(change, "A", "B")
    # Event counts whose runs overlap are no change either; counts apart in every run are.
    overlap = compare_causes([[_cause(events=3)], [_cause(events=4)]], [[_cause(events=4)], [_cause(events=5)]])
    assert [change.change for change in overlap] == ["varies"]
    apart = compare_causes([[_cause(events=1)], [_cause(events=1)]], [[_cause(events=3)], [_cause(events=3)]])
    assert [change.change for change in apart] == ["changed"]


def test_reasons_are_matched_without_numbers_lines_or_addresses():
    assert normalized("0/2: G['calls'] == 3  # counter.py:9 in step at 0x7f00aa") == \
        normalized("0/3: G['calls'] == 4  # counter.py:11 in step at 0x7f11bb")
    assert normalized("torch_dynamo_resume_in_step_at_11") == normalized("torch_dynamo_resume_in_step_at_14")
    assert normalized("size of `x` changed") != normalized("dtype of `x` changed")
    assert code_key("torch_dynamo_resume_in_step_at_14 (counter.py:14)") == "step, after a graph break (counter.py)"
    assert code_key("step (counter.py:7)") == code_key("step (counter.py:9)")


def test_the_dominant_stage_is_a_change_only_where_every_run_agrees():
    inductor = {"inductor": 900, "dynamo": 100}
    dynamo = {"inductor": 100, "dynamo": 900}
    assert "changed" in dominant_statement([inductor] * 3, [dynamo] * 3, "A", "B")
    mixed = dominant_statement([inductor, dynamo, inductor], [dynamo] * 3, "A", "B")
    assert "within the spread, not a change" in mixed
    close = dominant_statement([{"inductor": 500, "dynamo": 400}, {"inductor": 450, "dynamo": 520}], [dynamo] * 2,
                               "A", "B")
    assert "within the spread" in close
    assert "under both releases" in dominant_statement([inductor] * 2, [inductor] * 2, "A", "B")
    assert "not compared" in dominant_statement([inductor], [dynamo], "A", "B")


def test_stage_tables_are_labelled_inclusive_and_exclusive_and_each_side_says_its_build():
    a, b = _side(RECORDED / "line_moved" / "a", "A"), _side(RECORDED / "line_moved" / "b", "B")
    result = comparison("counter.py", "cpu", "cold", a, b)
    text = render(result, Style(False))
    assert "(inclusive: each stage's outermost calls" in text and "(exclusive: each stage's own time" in text
    assert "torch 2.13.0+cpu, CPU build" in text
    html = render_comparison(result)
    assert 'data-times="inclusive"' in html and 'data-times="exclusive"' in html
    assert 'data-build="CPU"' in html
    own = {row.key: row for row in result.own_stages}
    inclusive = {row.key: row for row in result.stages}
    assert own and all(own[key].a.median <= inclusive[key].a.median for key in own if key in inclusive)


def test_the_comparison_leads_with_the_findings_that_changed_then_the_counts_and_the_times():
    """What changed for this script comes first, on the terminal and on the page (issue 55, item 7)."""
    a, b = _side(RECORDED / "line_moved" / "a", "A"), _side(RECORDED / "line_moved" / "b", "B")
    result = comparison("counter.py", "cpu", "cold", a, b)
    text = render(result, Style(False))
    assert text.index("Findings that changed") < text.index("(inclusive: each stage's outermost calls")
    html = render_comparison(result)
    assert html.index('data-part="compare-findings"') < html.index('data-part="compare-counts"') < \
        html.index('data-part="compare-stages"')
