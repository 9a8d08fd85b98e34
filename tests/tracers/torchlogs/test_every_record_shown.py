"""Every record torch logs has a folded place on the page (pre/post-grad and joint graphs, AOT metadata, runtime
wrappers, per-op runtime estimates, tensor descriptions): nothing a record kind could show is dropped."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.report.fragment import render_fragment
from tracers.report.options import PAGE_ARTIFACTS, RenderOptions
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"
INPUTS = DATA / "tlparse" / "inputs"
LOGS = sorted(p for p in DATA.glob("tlparse/**/*.gz")) + sorted(DATA.glob("torch_trace-*/*.log.gz"))


def _page(trace) -> str:
    return render_fragment(trace, analyze(trace), options=RenderOptions(artifacts=PAGE_ARTIFACTS))


def _folded(page: str, name: str, kind: str) -> bool:
    return f'<code class="wt-artifact-name">{html.escape(name)}</code> <span class="wt-kind">{kind}</span>' in page


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_nothing_a_record_kind_could_show_is_dropped(path: Path) -> None:
    for log in load_logs(path).logs:
        assert log.trace.info.dropped_records == {}, log.source


def test_graphs_between_the_passes_and_aot_records_are_on_the_page() -> None:
    """tlparse lists these per compile for inductor_provenance_jit_log; so does the page, each folded."""
    trace = load_logs(INPUTS / "inductor_provenance_jit_log.txt.gz").logs[0].trace
    page = _page(trace)
    for name in ("before_pre_grad_graph", "after_pre_grad_graph", "before_post_grad_graph", "after_post_grad_graph"):
        assert _folded(page, name, "graph"), name
    for name in ("aot_forward_graph_fw_metadata", "torch._functorch.config"):
        assert _folded(page, name, "debug"), name
    assert _folded(page, "18 shape records", "shapes")  # the input tensors described, one list for the compile
    graph = next(a for a in trace.artifacts if a.name == "after_post_grad_graph")
    assert "class <lambda>" in graph.payload and "&lt;" in page and "<lambda>" not in page  # escaped


def test_joint_graphs_and_runtime_wrappers_are_on_the_page() -> None:
    joint = load_logs(DATA / "torch_trace-2.11.0-collective-divergence").logs[0].trace
    page = _page(joint)
    assert _folded(page, "before_joint_graph", "graph") and _folded(page, "after_joint_graph", "graph")
    fresh = load_logs(DATA / "torch_trace-2.13.0-gloo-collectives").logs[0].trace  # torch 2.13
    assert _folded(_page(fresh), "runtime_wrapper_orchestration", "debug")


def test_inductors_per_op_runtime_estimates_are_a_table() -> None:
    """multi_rank_runtime's rank 0: each op with its estimated time and outputs, and the graph's sum."""
    trace = load_logs(INPUTS / "multi_rank_runtime" / "dedicated_log_torch_trace_rank_0.log.gz").logs[0].trace
    page = _page(trace)
    assert _folded(page, "inductor_runtime_and_tensor_meta", "distributed")
    table = page[page.index('<table class="wt-compiles wt-op-estimates">'):]
    table = table[:table.index("</table>")]
    assert "<code>extern_kernels.mm</code>" in table and "6.89 ms" in table and "float16[1024, 1024]" in table
    assert "the graph, Inductor&#x27;s estimate" in table or "the graph, Inductor's estimate" in table


def test_graph_dumps_are_named_by_the_graph_they_hold() -> None:
    """AOTInductor's logs dump its wrapper and kernel code as graph_dump records; tlparse names each by its graph."""
    trace = load_logs(INPUTS / "inductor_provenance_aot_log.txt.gz").logs[0].trace
    dumps = sorted(a.name for a in trace.artifacts if a.name.startswith("graph_dump"))
    assert dumps == ["graph_dump inductor_aot_kernel_code", "graph_dump inductor_aot_wrapper_code"]
    assert _folded(_page(trace), "graph_dump inductor_aot_wrapper_code", "debug")
