"""The runtime part of `python -m tracers diff` and of the HTML diff, on two real ``--vs-eager --profile`` traces of
one small script: functions matched by their torch.compile line, a function compiled in one run only said so, the
profiled kernel time by line on both sides, and nothing at all where neither trace was timed. No timing is asserted:
what is shown must be what each trace's own runtime analysis says."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tracers.analysis.diff import diff
from tracers.analysis.speed import speed_of
from tracers.analysis.speed_diff import speed_diff
from tracers.report.diff import Side, render_diff
from tracers.terminal.diff import render_diff as render_text
from tracers.terminal.style import Style
from tracers.tracefile.chrome import load
from tracers.vocabulary.durations import duration
from tracers.tracefile.events import Trace

from tests.conftest import ROOT, SCRIPTS, run_python, run_trace

pytestmark = pytest.mark.torch

PAIR = SCRIPTS / "speed_pair.py"
PLAIN = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "mlp-cpu-cold.json"  # traced without either option
FUSED_LINE = "return (y.sin() * 2 + 1).relu()"


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple:
    """The script traced twice with both options: as is (A), and with a third compiled function (B)."""
    runs = [run_trace(PAIR, tmp_path_factory.mktemp(variant), "--vs-eager", "--profile", "--no-page",
                      script_args=(variant,)) for variant in ("a", "b")]
    for run in runs:
        assert run.returncode == 0, run.stderr
    return runs[0].trace_path, runs[1].trace_path


def _text(a: Trace, b: Trace) -> str:
    return render_text(diff(a, b), Style(False))


def test_functions_are_matched_by_their_compile_line_and_say_which_run_lacks_one(pair):
    a, b = load(pair[0]), load(pair[1])
    result = speed_diff(a, b)
    assert result.timed_a and result.timed_b
    assert [(row.name, row.a is not None, row.b is not None) for row in result.functions] == [
        ("scale_shift", True, True), ("block", True, True), ("only_in_b", False, True)]
    speed_a = {f.name: f for f in speed_of(a).functions}
    speed_b = {f.name: f for f in speed_of(b).functions}
    for row in result.functions[:2]:
        assert row.a == speed_a[row.name] and row.b == speed_b[row.name]  # each side as its own trace says it
        assert row.site == row.a.site == row.b.site and row.site.rsplit("/", 1)[-1].startswith(f"{PAIR.name}:")
        # The headline: the step where both runs timed one (one call's start to the next's), else the call.
        assert row.compiled_ratio == pytest.approx(row.b.headline.compiled_ns / row.a.headline.compiled_ns)
    swapped = speed_diff(b, a)
    assert [(row.name, row.a is not None, row.b is not None) for row in swapped.functions][-1] == \
        ("only_in_b", True, False)


def test_profiled_lines_are_matched_by_user_line_on_both_sides(pair):
    a, b = load(pair[0]), load(pair[1])
    block = next(row for row in speed_diff(a, b).profiles if row.name == "block")
    fused = next(line for line in block.lines if line.code == FUSED_LINE)
    lines_a = {line.line.code: line.ns_per_call for line in block.a.lines if line.line}
    lines_b = {line.line.code: line.ns_per_call for line in block.b.lines if line.line}
    assert (fused.a_ns, fused.b_ns) == (lines_a[FUSED_LINE], lines_b[FUSED_LINE])
    assert fused.ratio == pytest.approx(fused.b_ns / fused.a_ns) and fused.a_kernels >= 1
    largest = [max(line.a_ns or 0.0, line.b_ns or 0.0) for line in block.lines]
    assert largest == sorted(largest, reverse=True)  # the largest on either side first


def test_the_diff_command_prints_each_sides_times_and_the_ratio(pair):
    run = run_python(["-m", "tracers", "diff", str(pair[0]), str(pair[1])])
    assert run.returncode == 0, run.stderr
    section = run.stdout.split("Speed by your code", 1)[1]
    row = speed_diff(load(pair[0]), load(pair[1])).functions[0]
    label = re.escape(row.label)
    headline = row.a.headline
    assert re.search(rf"{label}\s+A\s+{row.a.calls:,}\s+{re.escape(duration(headline.eager_ns))}\s+"
                     rf"{re.escape(duration(headline.compiled_ns))}", section), section
    assert f"per {row.a.per}: {row.a.verdict_said}" in section
    assert f"compiled B/A {row.compiled_ratio:.2f}×" in section
    assert re.search(r"only_in_b \(speed_pair\.py:\d+\)\s+A\s+—  not compiled in A", section), section
    assert "Kernel time by your line: block (speed_pair.py:" in section and FUSED_LINE in section


def test_a_trace_without_a_runtime_section_is_said_and_two_say_nothing(pair):
    timed, plain = load(pair[0]), load(PLAIN)
    assert diff(plain, plain).runtime is None
    assert "Speed by your code" not in _text(plain, plain)
    names = ("CPU", "CPU again")
    html = render_diff(diff(plain, plain), Side(names[0], plain.info), Side(names[1], plain.info))
    assert 'data-part="diff-runtime"' not in html and "Speed by your code" not in html
    text = _text(timed, plain)
    assert "B: traced without --vs-eager or --profile" in text
    assert re.search(r"scale_shift \(speed_pair\.py:\d+\)\s+A.*\n\s+B\s+—  not timed", text), text


def test_the_html_diff_shows_both_sides_and_escapes_what_the_traces_say(pair):
    a, b = load(pair[0]), load(pair[1])
    result = diff(a, b)
    html = render_diff(result, Side("A run", a.info), Side("B run", b.info))
    part = html.split('data-part="diff-runtime">', 1)[1]
    rows = re.findall(r'<tr data-function="([^"]+)"', part)
    assert rows == [f"{row.site}#{row.order}" for row in result.runtime.functions]
    assert "not compiled in A run" in part and f"{result.runtime.functions[0].compiled_ratio:.2f}×" in part
    assert "Kernel time by your line: <code>block</code>" in part and "B run kernel time / call" in part
    evil = "<script>alert(1)</script>"
    first = result.runtime.functions[0]
    block = next(row for row in result.runtime.profiles if row.name == "block")
    hostile = replace(result.runtime, functions=(replace(first, name=evil, site=evil),),
                      profiles=(replace(block, name=evil, site=evil, lines=(replace(block.lines[0], code=evil),)),))
    html = render_diff(replace(result, runtime=hostile), Side(evil, a.info), Side("B", b.info))
    assert "<script>" not in html and html.count("&lt;script&gt;") >= 5


def test_sides_timed_by_different_clocks_are_said_so(pair):
    a, b = load(pair[0]), load(pair[1])
    result = diff(a, b)
    cuda_timed = replace(result, runtime=replace(result.runtime, timer_b="cuda events"))
    assert "A timed by perf_counter, B by cuda events" in render_text(cuda_timed, Style(False))
    assert "timed by" not in render_text(result, Style(False))
