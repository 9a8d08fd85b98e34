"""`python -m tracers diff`: the stage diff of two recorded traces, and one clear line for bad files."""

from __future__ import annotations

import json

import pytest

from tracers.chrome import load
from tracers.diff import diff, kernels

from .conftest import ROOT, run_python

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
