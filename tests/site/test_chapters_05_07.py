"""The examples of chapters 5-7 show, under the tracer, what their chapters say they show (no Inductor compiles)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest
import torch

from tracers.tracefile.events import Span, Trace

from tests.conftest import EXAMPLES, CliRun, run_trace

pytestmark = pytest.mark.torch


def _import(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{stem}", EXAMPLES / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _guards(trace: Trace, compile_id: str) -> str:
    texts = [a.payload or "" for a in trace.artifacts
             if a.name == "dynamo_cpp_guards_str" and a.compile_id == compile_id]
    assert texts, f"no guards recorded for {compile_id}"
    return "\n".join(texts)


def _recompile_reasons(trace: Trace, compile_id: str) -> str:
    return "\n".join(a.payload or "" for a in trace.artifacts if a.kind == "recompile" and a.compile_id == compile_id)


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    return run_trace(EXAMPLES / "graph_breaks_fixed.py", tmp_path_factory.mktemp("fixed"), script_args=("aot_eager",))


@pytest.fixture(scope="module")
def dynamic(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    return run_trace(EXAMPLES / "dynamic_shapes.py", tmp_path_factory.mktemp("dynamic"))  # aot_eager by default


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    return run_trace(EXAMPLES / "backends.py", tmp_path_factory.mktemp("backends"),
                     script_args=("eager", "aot_eager", "custom"))


# -- chapter 5: the fixed program ---------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fixed_computes_what_the_original_computes(seed):
    original, fixed_module = _import("graph_breaks"), _import("graph_breaks_fixed")
    x = torch.randn(16, generator=torch.Generator().manual_seed(seed))
    torch.testing.assert_close(fixed_module.scale_and_report(x), original.scale_and_report(x))


def test_fixed_has_no_graph_breaks_and_one_frame(fixed):
    assert fixed.returncode == 0, fixed.stderr
    facts = fixed.facts()
    assert facts.graph_breaks == []
    assert [c.compile_id for c in facts.compiles] == ["0/0", "0/1"]  # one frame; the size change recompiles once
    assert all(c.graphs == 1 for c in facts.compiles)
    assert not [s for s in fixed.trace().spans if s.error]  # no restarted tracing pass


def test_recorded_before_and_after_traces_differ_as_the_chapter_says():
    from tracers.analysis.trace_facts import analyze
    from tracers.tracefile.chrome import load

    from tests.conftest import ROOT

    recorded = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
    before = analyze(load(recorded / "graph_breaks-cpu-cold.json"))
    after = analyze(load(recorded / "graph_breaks_fixed-cpu-cold.json"))
    assert len(before.graph_breaks) == 4 and {c.compile_id.split("/")[0] for c in before.compiles} == {"0", "1", "2"}
    assert after.graph_breaks == [] and {c.compile_id for c in after.compiles} == {"0/0", "0/1"}


# -- chapter 6: dynamic shapes ------------------------------------------------------------------

def test_dynamic_shapes_guards(dynamic):
    assert dynamic.returncode == 0, dynamic.stderr
    trace = dynamic.trace()
    assert "size=[8]" in _guards(trace, "0/0")  # static first
    assert "size mismatch" in _recompile_reasons(trace, "0/1")
    assert "L['tail'].size()[0] + 2*L['a'].size()[0] >= 16" in _guards(trace, "0/1")  # the chapter's guard
    duck = _guards(trace, "1/0")
    assert "L['b'].size()[0] == L['a'].size()[0]" in duck and "duck sizing" in duck
    assert "2 <= L['a'].size()[0] <= 7" in duck  # 2*s < 16 folded into the range
    assert "duck sizing" in _recompile_reasons(trace, "1/1")
    assert [c.compile_id for c in dynamic.facts().compiles] == ["0/0", "0/1", "1/0", "1/1"]


def test_dynamic_shapes_later_sizes_do_not_compile(dynamic):
    trace = dynamic.trace()
    region = _region(trace, "more sizes: no recompile")
    assert _inside(trace, region) == []


# -- chapter 7: backends ------------------------------------------------------------------------

def _region(trace: Trace, name: str) -> Span:
    found = [s for s in trace.spans if s.stage == "user" and s.target.endswith(":" + name)]
    assert len(found) == 1, f"region {name!r}: {[s.target for s in trace.spans if s.stage == 'user']}"
    return found[0]


def _inside(trace: Trace, region: Span) -> list[Span]:
    return [s for s in trace.spans if s.stage != "user" and s.thread_id == region.thread_id
            and region.start_ns <= s.start_ns and s.end_ns is not None and s.end_ns <= region.end_ns]


def test_each_backend_compiles_on_its_first_call_only(backends):
    assert backends.returncode == 0, backends.stderr
    assert "custom backend received a GraphModule" in backends.stdout + backends.stderr
    trace = backends.trace()
    for name in ("eager", "aot_eager", "custom"):
        first = {s.target for s in _inside(trace, _region(trace, f"{name}: first call"))}
        assert "torch._dynamo.output_graph:OutputGraph.call_user_compiler" in first
        assert ("torch._dynamo.backends.common:AotAutograd.__call__" in first) == (name == "aot_eager")
        assert _inside(trace, _region(trace, f"{name}: later calls")) == []
    compiles = [c.compile_id for c in backends.facts().compiles]
    assert compiles == ["0/0", "0/1", "0/2"]
    assert all("BACKEND_MATCH" in _recompile_reasons(trace, cid) for cid in ("0/1", "0/2"))


def test_examples_run_without_the_toolkit(tmp_path):
    from tests.conftest import run_python

    # Outside the repo, with no PYTHONPATH, `tracers` cannot be imported: region() falls back to nullcontext.
    result = run_python([str(EXAMPLES / "backends.py"), "eager"], env={"PYTHONPATH": ""}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "eager: ok" in result.stdout


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
