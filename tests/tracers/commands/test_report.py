"""`python -m tracers report`: any saved trace as a standalone page linking chapters and torch's source."""

from __future__ import annotations

import pytest

from tracers.report.save import write_report
from tracers.tracefile.chrome import load
from tracers.tracefile.stages import STAGE_BY_ID

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

CUDA_TRACE = ROOT / "docs" / "_traces" / "cuda" / "2.11.0" / "reduce_overhead-cuda-cold.json"


def test_page_links_spans_to_torch_source_at_the_recorded_commit_and_to_chapters(mlp_cold, tmp_path):
    trace = mlp_cold.trace()
    sha = trace.info.torch_git_sha
    path, start, end = trace.info.target_sources["torch._dynamo.convert_frame:_compile"]
    assert path == "torch/_dynamo/convert_frame.py" and start < end
    page = write_report(trace, mlp_cold.trace_path, tmp_path, site="https://example.org/walkthrough")
    html = page.read_text()
    assert f"https://github.com/pytorch/pytorch/blob/{sha}/{path}#L{start}-L{end}" in html
    assert f"https://example.org/walkthrough/{STAGE_BY_ID['frame'].chapter}.html" in html
    assert "mlp-cpu-cold.json" in html  # the download link to the trace itself
    assert html.count("<script") == 1 and " src=" not in html  # only the timeline's inline zoom, nothing fetched


def test_report_command_renders_a_trace_recorded_on_another_machine(tmp_path):
    result = run_python(["-m", "tracers", "report", str(CUDA_TRACE), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    page = tmp_path / "reduce_overhead-cuda-cold.html"
    assert result.stdout.strip() == str(page)
    html = page.read_text()
    assert load(CUDA_TRACE).info.device_name.startswith("NVIDIA H")  # recorded on an H100 or an H200
    assert load(CUDA_TRACE).info.device_name in html and "CUDAGraphTreeManager.record_function" in html
    assert load(CUDA_TRACE).info.torch_version in html


@pytest.mark.parametrize("content,reason", [
    ("{", "not valid JSON"),
    ('{"traceEvents": []}', "not a trace written by this tool"),
])
def test_report_on_a_bad_file_is_one_line_and_exit_2(tmp_path, content, reason):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run_python(["-m", "tracers", "report", str(bad)])
    assert result.returncode == 2
    assert result.stderr.strip().startswith("report: ") and reason in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bad.html").exists()
