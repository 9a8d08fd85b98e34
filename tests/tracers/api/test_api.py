"""The Python API (``with tracers.trace() as t:``) on the graph-break example, in this process, against the CLI."""

from __future__ import annotations

import os
import re
import runpy

import pytest
import torch
import torch._dynamo

import tracers
from tracers.analysis.trace_facts import analyze
from tracers.tracefile.chrome import load
from tracers.vocabulary.usage import UsageError

from tests.conftest import EXAMPLES

pytestmark = pytest.mark.torch

EXAMPLE = EXAMPLES / "graph_breaks.py"
HERE = os.path.abspath(__file__)


def _run_example() -> None:
    """What graph_breaks.py's main() does with the aot_eager backend (the CLI fixture runs the same)."""
    scale_and_report = runpy.run_path(str(EXAMPLE), run_name="graph_breaks")["scale_and_report"]
    torch.manual_seed(0)
    compiled = torch.compile(scale_and_report, backend="aot_eager")
    compiled(torch.randn(16))
    compiled(torch.randn(32))  # new shape: recompiles


@pytest.fixture(scope="module")
def traced() -> tracers.TraceResult:
    torch._dynamo.reset()
    with tracers.trace(name="graph_breaks") as result:
        _run_example()
        live = (int(result.graph_breaks), result.finished)
    torch._dynamo.reset()
    assert live == (4, False), "inside the block the result counts what happened so far"
    return result


def test_counts_equal_the_command_lines_analysis_and_torchs_own(traced, graph_breaks) -> None:
    cli = graph_breaks.facts()
    assert traced.finished
    assert isinstance(traced.graph_breaks, int)
    assert (traced.graphs, traced.graph_breaks, traced.recompiles, traced.compiles) == \
        (cli.graph_count, len(cli.graph_breaks), len(cli.recompiles), cli.totals().frame_compiles)
    assert (traced.graph_breaks, traced.recompiles, traced.compiles) == (4, 3, 6)
    check = traced.trace.info.totals_check
    torch_counted = check["torch"]
    assert (torch_counted["graph_breaks"], torch_counted["recompiles"], torch_counted["frame_compiles"]) == (4, 3, 6)


def test_breaks_and_recompiles_carry_reasons_and_user_lines(traced) -> None:
    source = EXAMPLE.read_text().splitlines()
    lines = {brk.at.line for brk in traced.breaks}
    assert lines == {10, 11}
    for brk in traced.breaks:
        assert brk.at.filename == str(EXAMPLE)
        assert brk.at.text == source[brk.at.line - 1].strip()
        expected = "print" if brk.at.line == 10 else "item()"
        assert expected in brk.reason
    assert [recompile.compile_id for recompile in traced.recompilations] == ["0/1", "1/1", "2/1"]
    first = traced.recompilations[0]
    assert "size mismatch" in first.reasons[0]
    assert first.frame.startswith("scale_and_report (graph_breaks.py:8)")
    assert first.called_from.filename == HERE and "compiled(torch.randn(32))" in first.called_from.text
    # A failed budget names each one (what the pytest plugin prints under ``assert 4 == 0``).
    explained = traced.graph_breaks.explain()
    assert explained[0].startswith("graph break 1: [0/0] graph_breaks.py:10 `print(")
    assert [line.split(":")[0] for line in explained[:4]] == [f"graph break {n}" for n in range(1, 5)]
    # ... then the findings, worst first: the four breaks are two causes, the recompiles one.
    assert explained[4] == "findings (worst first):" and len(explained) == 4 + 1 + len(traced.findings)
    assert {finding.kind for finding in traced.findings} >= {"graph-break", "recompile"}


def test_transformed_code_is_decompiled_with_its_calls_to_graphs_and_resume_functions(traced) -> None:
    by_compile = {code.compile_id: code for code in traced.code}
    assert set(by_compile) == {"0/0", "0/1", "1/0", "1/1", "2/0", "2/1"}
    first = by_compile["0/0"]
    assert first.name == "scale_and_report"
    assert first.source.startswith("def scale_and_report(x):")
    # The frame calls its compiled graph, then the function Dynamo made for the rest after the break.
    assert re.search(r"__compiled_fn_\w+\(x\)", first.source)
    assert re.search(r"return __resume_at_\w+\(", first.source)
    assert "LOAD_GLOBAL" in first.listing and "__compiled_fn_" in first.listing
    resumed = by_compile["1/0"]
    assert resumed.name == "torch_dynamo_resume_in_scale_and_report_at_10"
    assert resumed.source.startswith(f"def {resumed.name}(")


def test_summary_is_the_command_lines(traced) -> None:
    summary = traced.summary()
    assert summary.startswith("torch.compile trace — torch ")
    assert "Graphs 6   Graph breaks 4   Recompiles 3" in summary
    assert "\033[" not in summary


def test_save_writes_a_trace_that_loads_back_and_its_page(traced, tmp_path) -> None:
    json_path, page = traced.save(tmp_path / "out")
    assert json_path.name == "graph_breaks-cpu-cold.json" and page.name == "graph_breaks-cpu-cold.html"
    loaded = load(json_path)
    assert analyze(loaded).totals() == traced.facts.totals()
    assert str(tmp_path) not in json_path.read_text()  # machine paths scrubbed, as the CLI does
    html = page.read_text()
    assert "as Python (depyf " in html and "__compiled_fn_" in html and "LOAD_GLOBAL" in html


def test_inline_html_is_self_contained_and_scoped(traced) -> None:
    html = traced._repr_html_()
    assert html.startswith('<div class="wt-inline"><style>')
    for fetching in ("<script", "<link", "src=", "@import", "url(", "<iframe"):
        assert fetching not in html
    styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    assert len(styles) == 1
    css = re.sub(r"/\*.*?\*/", "", styles[0], flags=re.S)
    selectors = [selector.strip() for block in re.findall(r"([^{}]+)\{", css) for selector in block.split(",")]
    assert selectors and all(".wt-" in selector for selector in selectors), \
        [selector for selector in selectors if ".wt-" not in selector]
    assert "Failed to trace builtin operator" in html and 'class="wt-code-pair"' in html


def _bindings() -> dict[str, object]:
    """What tracing patches or sets, as it stands now."""
    import torch._inductor.config as inductor_config
    from torch._logging import _internal

    return {"convert_frame._compile": torch._dynamo.convert_frame._compile,
            "trace_structured": _internal.trace_structured,
            "torch._logging.trace_structured": torch._logging.trace_structured,
            "handlers": tuple(_internal.trace_log.handlers),
            "fx_graph_cache": inductor_config.fx_graph_cache,
            "cache dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
            "os._exit": os._exit,
            "default device": torch.get_default_device()}


def test_every_patch_is_undone_when_the_block_raises() -> None:
    before = _bindings()
    with pytest.raises(ValueError, match="from the block"):
        with tracers.trace(cache="cold") as result:
            assert _bindings()["trace_structured"] is not before["trace_structured"]
            torch.compile(lambda x: x.cos(), backend="eager")(torch.ones(2))
            raise ValueError("from the block")
    after = _bindings()
    assert all(after[key] is before[key] or after[key] == before[key] for key in before), (before, after)
    assert result.trace.info.status == "error" and "ValueError: from the block" in result.trace.info.error
    assert result.compiles == 1


def test_decorator_traces_each_call_and_passes_the_result_through() -> None:
    @tracers.trace(cache="warm")
    def double(x):
        return torch.compile(lambda y: y * 2, backend="eager")(x)

    assert double.last_trace is None
    assert double(torch.ones(2)).tolist() == [2.0, 2.0]
    first = double.last_trace
    assert first.name == "double" and first.compiles == 1 and first.trace.info.cache_mode == "warm"
    double(torch.ones(2))
    assert double.last_trace is not first


class _Opaque:
    """A context manager Dynamo cannot resume inside: a break under it makes the whole frame run eagerly."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _breaks_under_an_opaque_context(x):
    with _Opaque():
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2


def test_a_break_dynamo_cannot_resume_from_is_listed_but_not_counted_as_torch_does() -> None:
    torch._dynamo.reset()
    with tracers.trace(cache="warm") as result:
        assert torch.compile(_breaks_under_an_opaque_context, backend="eager")(torch.ones(2)).tolist() == [4.0, 4.0]
    (listed,) = result.breaks
    assert "graph_break()" in listed.reason
    assert result.graph_breaks == 0 == result.facts.totals().graph_breaks
    check = result.trace.info.totals_check
    assert check["mismatches"] == [] and check["torch"]["graph_breaks"] == 0


def test_records_never_kept_are_counted() -> None:
    with tracers.trace(cache="warm") as result:
        torch.compile(lambda x: x.exp(), backend="aot_eager")(torch.ones(3))
    dropped = result.trace.info.dropped_records
    assert dropped.get("chromium_event", 0) > 10  # skipped or dropped, always counted (test_record_filter.py)
    assert {"dynamo_output_graph", "aot_inference_graph", "dynamo_cpp_guards_str"} <= \
        {artifact.name for artifact in result.trace.artifacts}


@pytest.mark.parametrize("options, message", [
    ({"cache": "hot"}, "cache 'hot': choose cold or warm"),
    ({"device": "tpu"}, "device 'tpu': choose cpu or cuda"),
    ({"out": "/proc/no-such-dir"}, "out /proc/no-such-dir: cannot write there"),
])
def test_bad_options_are_one_line_before_anything_runs(options, message) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        tracers.trace(**options)


def test_the_api_imports_no_torch() -> None:
    from tests.conftest import run_python

    code = "import sys, tracers, tracers.api; tracers.trace; print('torch' in sys.modules)"
    assert run_python(["-c", code]).stdout.strip() == "False"


def test_without_depyf_the_listing_stays(monkeypatch) -> None:
    """Without depyf (not in the plain install) the run has no warning for it (issue 55: one on every trace); the page
    says, where the code is shown, how to see it as Python."""
    import tracers.capture.decompiled

    monkeypatch.setattr(tracers.capture.decompiled, "_decompiler", lambda: (None, None))
    with tracers.trace(cache="warm") as result:
        torch.compile(lambda x: x.sigmoid(), backend="eager")(torch.ones(2))
    (code,) = result.code
    assert code.source is None and "LOAD_GLOBAL" in code.listing and "__compiled_fn_" in code.listing
    assert not any("depyf" in warning for warning in result.trace.info.warnings)
    assert "recorded without depyf: pip install depyf" in result._repr_html_()


def test_a_second_block_in_one_process_still_names_the_files() -> None:
    """Torch interns each file name once per process: a later block must read names interned during an earlier one."""
    import torch

    def shift(x):
        return x + 1

    for _ in range(2):
        torch._dynamo.reset()
        with tracers.trace() as t:
            torch.compile(shift, backend="aot_eager")(torch.ones(3))
        callers = [a.metadata["user_frame"]["filename"] for a in t.trace.artifacts
                   if a.kind == "frame" and a.metadata.get("user_frame")]
        assert callers and all(name.endswith("test_api.py") for name in callers), callers
