"""`python -m tracers diff`: the stage diff of two recorded traces, and one clear line for bad files."""

from __future__ import annotations

import json

import pytest

from tracers.analysis.diff import diff, kernels
from tracers.tracefile.chrome import load

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

CPU = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "mlp-cpu-cold.json"
CUDA = ROOT / "docs" / "_traces" / "cuda" / "2.11.0" / "mlp-cuda-cold.json"


def test_cpu_and_cuda_differ_in_codegen_stage_and_kernels():
    result = diff(load(CPU), load(CUDA))
    by_stage = {row.stage: row for row in result.stages}
    assert by_stage["cpp"].b_ns is None and by_stage["cpp"].a_ns > 0
    assert by_stage["triton"].a_ns is None and by_stage["triton"].b_ns > 0
    assert result.only_a == ("torch._inductor.codegen.cpp:CppScheduling.codegen_node",)
    assert "torch._inductor.codegen.triton:TritonKernel.codegen_kernel" in result.only_b
    assert all(name.startswith("cpp_fused_") for name in result.kernels_a)
    assert all(name.startswith("triton_") for name in result.kernels_b)
    assert dict((what, (a, b)) for what, a, b in result.counts)["graphs"] == (1, 1)


def test_a_trace_against_itself_has_no_differences():
    trace = load(CPU)
    result = diff(trace, trace)
    assert result.only_a == result.only_b == ()
    assert all(row.a_ns == row.b_ns for row in result.stages)
    assert kernels(trace) == result.kernels_a == result.kernels_b


def test_diff_command_prints_both_sides():
    result = run_python(["-m", "tracers", "diff", str(CPU), str(CUDA)])
    assert result.returncode == 0, result.stderr
    assert "only in A" in result.stdout and "only in B" in result.stdout
    assert "cuda · torch 2.11.0" in result.stdout


@pytest.mark.parametrize("content,reason", [
    (None, "no such file"),
    ('{"traceEvents": [{"ph": "X", "name": "a"', "not valid JSON"),
    ('{"traceEvents": [], "otherData": {"version": "viztracer"}}', "not a trace written by this tool"),
    ('{"traceEvents": [], "otherData": {"torch_compile_walkthrough": {"format_version": 7}}}', "newer than this tool"),
])
def test_bad_trace_file_gets_one_line_and_exit_2(tmp_path, content, reason):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    result = run_python(["-m", "tracers", "diff", str(CPU), str(bad)])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("diff: ") and reason in lines[0], result.stderr
    assert json.loads(CPU.read_text())  # the good side is untouched


def test_compiles_are_matched_by_id_and_resets_stay_apart(tmp_path):
    """A trace with resets against one without: ``r1:0/0`` is its own row, never merged into ``0/0``."""
    tutorial = tmp_path / "tutorial"
    traced = run_python(["-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(tutorial),
                         str(ROOT / "tests" / "programs" / "tutorial_resets.py")],
                        cwd=ROOT / "tests" / "programs")
    assert traced.returncode == 0, traced.stderr
    with_resets = load(tutorial / "tutorial_resets-cpu-cold.json")
    result = diff(load(CPU), with_resets)
    rows = {row.compile_id: row for row in result.compiles}
    assert {"0/0", "r1:0/0", "r2:0/0"} <= set(rows)
    assert rows["0/0"].a is not None and rows["0/0"].b.frame.startswith("foo (tutorial_resets.py:")
    assert rows["r1:0/0"].a is None and rows["r1:0/0"].b.frame.startswith("bar (tutorial_resets.py:")
    assert sum(row.b.graphs for row in result.compiles if row.b) == dict(
        (what, b) for what, _, b in result.counts)["graphs"]
    same = diff(with_resets, with_resets)
    assert same.compiles and not any(row.differs for row in same.compiles)
    printed = run_python(["-m", "tracers", "diff", str(CPU), str(tutorial / "tutorial_resets-cpu-cold.json")])
    assert "r1:0/0" in printed.stdout and "B: bar (tutorial_resets.py:" in printed.stdout


def test_a_fix_under_another_file_name_leads_with_the_breaks_that_went_away():
    before, after = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "graph_breaks-cpu-cold.json", \
        ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "graph_breaks_fixed-cpu-cold.json"
    result = diff(load(before), load(after))
    assert (result.renamed.a, result.renamed.b) == ("graph_breaks.py", "graph_breaks_fixed.py")
    gone = [change.where for change in result.findings if change.change == "went away"]
    assert gone == ["graph_breaks.py:10", "graph_breaks.py:11"]  # B's lines matched as A's
    text = run_python(["-m", "tracers", "diff", str(before), str(after)]).stdout
    assert text.index("Findings") < text.index("Stages")
    assert "a graph break at graph_breaks.py:10 went away under B" in text


def test_the_compiles_that_did_the_same_work_measure_the_runs_own_difference():
    trace = load(CPU)
    same = diff(trace, trace).same_work
    assert same is not None and same.ratio == same.low == same.high == 1.0
    assert diff(trace, trace).findings == ()
