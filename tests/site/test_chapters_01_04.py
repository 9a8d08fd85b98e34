"""The recorded traces of chapters 1-4 show what their chapters say they show (read from docs/_traces; nothing compiles)."""

from __future__ import annotations

from collections import Counter

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.tracefile.chrome import load
from tracers.tracefile.events import Trace

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
CONVERT_FRAME = "torch._dynamo.convert_frame:ConvertFrame.__call__"
CONTEXT_CALL = "torch._dynamo.eval_frame:_TorchDynamoContext.__call__"
TRACE_FRAME = "torch._dynamo.convert_frame:trace_frame"


def _trace(stem: str) -> Trace:
    path = RECORDED / f"{stem}-cpu-cold.json"
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded")
    return load(path)


def _spans(trace: Trace, target: str, compile_id: str | None = None) -> list:
    return [s for s in trace.spans if s.target == target and (compile_id is None or s.compile_id == compile_id)]


def _artifacts(trace: Trace, name: str, compile_id: str) -> list:
    return [a for a in trace.artifacts if a.name == name and a.compile_id == compile_id]


def test_mlp_module_compile_calls_the_context_twice_nested():
    """Chapter 1: the OptimizedModule constructor calls the optimize context again, inside the first call."""
    trace = _trace("mlp")
    calls = _spans(trace, CONTEXT_CALL)
    assert len(calls) == 2
    outer, inner = sorted(calls, key=lambda s: s.depth)
    assert inner.parent == outer.id
    # nn.Module's own frames are declined: the first compile is the model's forward, named with its class.
    assert [c.frame for c in analyze(trace).compiles][0].startswith("MLP.forward (mlp.py:")


def test_frame_cache_three_calls_one_conversion():
    """Chapter 2: the second and third calls hit the cache; shift is inlined, not converted."""
    trace = _trace("frame_cache")
    assert len(_spans(trace, CONVERT_FRAME)) == 1
    facts = analyze(trace)
    assert [c.compile_id for c in facts.compiles] == ["0/0"] and facts.compiles[0].graphs == 1
    assert not facts.recompiles and not facts.graph_breaks
    runs = _spans(trace, "torch._dynamo.symbolic_convert:InstructionTranslatorBase.run")
    assert len(runs) == 2 and sum(1 for s in runs if s.parent in {r.id for r in runs}) == 1  # the inlined shift


def test_bytecode_rewrite_records_bytecode_only_for_the_resume_function():
    """Chapter 3: torch 2.13 emits original/modified bytecode for resume functions only; 0/0 restarts once."""
    trace = _trace("bytecode_rewrite")
    bytecode = [a for a in trace.artifacts if a.kind == "bytecode"]
    assert {a.compile_id for a in bytecode} == {"1/0"}
    assert sorted(a.name.rsplit("_", 2)[-2] for a in bytecode) == ["MODIFIED", "ORIGINAL"]
    original = next(a.payload for a in bytecode if a.name.endswith("_ORIGINAL_BYTECODE"))
    modified = next(a.payload for a in bytecode if a.name.endswith("_MODIFIED_BYTECODE"))
    assert "__is_tracing_resume_prologue" in original and "JUMP_FORWARD" in original
    assert "graph_break" in original  # the copied first half of normalize
    assert "__compiled_fn_" in modified and "record_pregraph_bytecode_enter" in modified
    assert "graph_break" not in modified
    attempts = _spans(trace, TRACE_FRAME, "0/0")
    assert len(attempts) == 2 and attempts[0].error == "SpeculationRestartAnalysis" and attempts[1].error is None
    graphs = {a.compile_id: a.payload for a in trace.artifacts if a.name == "dynamo_output_graph"}
    assert "torch.relu" in graphs["0/0"] and "sum" in graphs["1/0"]


def test_guards_recompile_tells_the_story_of_chapter_4():
    """Chapter 4: 6 calls, 4 conversions, 3 compiles, reasons most recent first, 0/3 refused by the limit."""
    trace = _trace("guards_recompile")
    assert len(_spans(trace, CONVERT_FRAME)) == 4
    facts = analyze(trace)
    assert [c.compile_id for c in facts.compiles] == ["0/0", "0/1", "0/2", "0/3"]
    assert [c.graphs for c in facts.compiles] == [1, 1, 1, 0]
    assert facts.compiles[0].guard_count == 11
    reasons = {r.compile_id: r.reasons for r in facts.recompiles}
    assert "size mismatch" in reasons["0/1"][0]
    assert [r[:3] for r in reasons["0/2"]] == ["0/1", "0/0"] and all("dtype" in r for r in reasons["0/2"])
    assert reasons["0/3"][0].startswith("0/2") and all("factor == 2" in r for r in reasons["0/3"][1:])
    assert "size=[None]" in _artifacts(trace, "dynamo_cpp_guards_str", "0/1")[0].payload
    metrics = _artifacts(trace, "compilation_metrics", "0/3")[0].metadata
    assert metrics["fail_type"] == "Unsupported" and "recompile limit exceeded" in metrics["fail_reason"]
    tree = _artifacts(trace, "dynamo_cpp_guards_str", "0/0")[0].payload
    kinds = Counter(line.split("+- ", 1)[1].split(":", 1)[0] for line in tree.splitlines() if "+- " in line)
    assert kinds["DIMENSION_DYNAMIC_MARKING_GUARD"] == 5 and kinds["TENSOR_MATCH"] == 1 and kinds["ID_MATCH"] == 2
