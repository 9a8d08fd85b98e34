"""What the slow-stage note advises for bytecode tracing, from the run: the recompiles where they are most of it,
regional compilation only for a compile that traced a repeated block, else nothing."""

from __future__ import annotations

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.analysis.waste import _bytecode_advice
from tracers.tracefile.chrome import load

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

DATA = ROOT / "tests" / "data" / "torch-2.13.0"


def test_recompiles_that_are_most_of_the_compile_are_named_not_regional_compilation():
    trace = load(DATA / "size_pinned_by_branch-live.json")  # 0/1 is about half of the compile time
    advice = _bytecode_advice(trace, analyze(trace))
    assert advice.startswith("Most of it is the recompiles' tracing") and "regional" not in advice


def test_one_compile_of_a_small_step_gets_no_regional_advice():
    trace = load(DATA / "compile_failed_in_library-live.json")  # one compile, no block traced four times
    assert _bytecode_advice(trace, analyze(trace)) is None


def test_tracing_that_breaks_threw_away_is_named_before_regional_compilation():
    """A hook's break in every layer's frame: most of the compile traced frames that produced no graph."""
    from types import SimpleNamespace

    from tracers.analysis.trace_facts import CompileFacts, GraphBreak

    compiles = [CompileFacts("0/0", "Model.forward (m.py:3)", graphs=0, time_ns=6_000_000_000),
                CompileFacts("1/0", "Layer.forward (m.py:9)", graphs=1, time_ns=3_000_000_000, restart_ns=1_000_000_000),
                CompileFacts("2/0", "Layer.forward (m.py:9)", graphs=1, time_ns=1_000_000_000)]
    breaks = [GraphBreak("0/0", "m.py:12", "hook"), GraphBreak("1/0", "m.py:12", "hook")]  # 2/0: no break, no loss
    facts = SimpleNamespace(compiles=compiles, recompiles=[], frame_compiles=compiles, graph_breaks=breaks)
    advice = _bytecode_advice(SimpleNamespace(), facts)
    assert advice.startswith("Most of it is tracing that graph breaks threw away (70% of the compile time")
    assert "helps only where it leaves the breaking code out" in advice


def test_a_step_outside_every_compile_is_no_share_of_compile_time():
    """A C++ build with no compile id (one that ran before any compile began) is not charged to the compiles: no
    "C++ codegen took 100% of compile"; the same build inside a compile is."""
    import dataclasses

    from tracers.analysis.waste import dominant_stage
    from tracers.tracefile.events import Span

    trace = load(DATA / "size_pinned_by_branch-live.json")
    whole = sum(facts.time_ns for facts in analyze(trace).compiles)
    start = max(span.end_ns or span.start_ns for span in trace.spans) + 1
    build = Span(max(span.id for span in trace.spans) + 1, None, "torch._inductor.cpp_builder:CppBuilder.build",
                 "cpp", trace.spans[0].thread_id, trace.spans[0].thread_name, 0, start, start + 3 * whole)
    outside = dataclasses.replace(trace, spans=[*trace.spans, build])
    assert not any("C++ codegen" in finding.what for finding in dominant_stage(outside, analyze(outside)))
    inside = dataclasses.replace(trace, spans=[*trace.spans, dataclasses.replace(build, compile_id="0/0")])
    assert any("C++ codegen" in finding.what for finding in dominant_stage(inside, analyze(inside)))


def test_regional_compilation_is_said_with_the_versions_a_per_block_number_makes():
    """Each layer's ``self_attn.layer_idx`` guarded to its own value (a transformers decoder): compiling the layer
    compiles one version per layer, and past the recompile limit the later layers run eagerly (blind round 10)."""
    import dataclasses

    from tracers.analysis.waste import _per_block_constants
    from tracers.tracefile.events import Artifact

    trace = load(DATA / "size_pinned_by_branch-live.json")
    assert _per_block_constants(trace) is None
    guards = "\n".join(f"| +- EQUALS_MATCH: L['self']._modules['model']._modules['layers']._modules['{index}']"
                       f"._modules['self_attn'].layer_idx == {index}  # layer" for index in range(3))
    shared = guards.replace("layer_idx == 1", "layer_idx == 0").replace("layer_idx == 2", "layer_idx == 0")
    made = [Artifact(9000, "guards", "dynamo_cpp_guards_str", "0/0", None, 0, 0, {}, payload=text)
            for text in (guards,)]
    assert _per_block_constants(dataclasses.replace(trace, artifacts=[*trace.artifacts, *made])) == \
        ("layers[i].self_attn.layer_idx", ["0", "1", "2"])
    same = [dataclasses.replace(made[0], payload=shared)]
    assert _per_block_constants(dataclasses.replace(trace, artifacts=[*trace.artifacts, *same])) is None
