"""Autotuning results: read from do_autotuning's result, filed on its span, never in the program's way."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from tracers.analysis.trace_facts import analyze
from tracers.terminal.summary import Style, render
from tracers.capture import autotune
from tracers.capture.recorder import Recorder
from tracers.tracefile.chrome import load
from tracers.tracefile.stages import TARGET_BY_NAME

from tests.conftest import ROOT

pytestmark = pytest.mark.torch

RECORDED = sorted((ROOT / "docs" / "_traces").glob("*/*/max_autotune-*-cold.json"))
SELECT = "torch._inductor.select_algorithm:autotune_select_algorithm"


class Choice:
    def __init__(self, name: str, description: str = ""):
        self.name, self.description = name, description


class Node:
    def __init__(self, *sizes: int):
        self._sizes = sizes

    def get_size(self):
        return self._sizes


def test_candidates_are_listed_fastest_first_and_a_failed_one_last():
    timings = {Choice("triton_mm_1", "BLOCK_M=64"): 0.02, Choice("failed"): float("inf"), Choice("aten_mm"): 0.01}
    metadata, text = autotune.describe((None, "mm", [Node(256, 512), Node(512, 512)]), timings)
    assert [choice["name"] for choice in metadata["choices"]] == ["aten_mm", "triton_mm_1", "failed"]
    assert metadata["chosen"] == "aten_mm" and metadata["inputs"] == ["256x512", "512x512"]
    assert metadata["choices"][2]["ms"] is None
    assert text.splitlines()[0] == "mm(256x512, 512x512): 3 candidates benchmarked"
    assert "<- chosen" in text.splitlines()[1] and "failed" in text.splitlines()[3]
    assert " 50.0%" in text.splitlines()[2] and "BLOCK_M=64" in text.splitlines()[2]


def test_results_of_an_unknown_shape_file_nothing():
    assert autotune.describe((None, "mm", []), {}) is None
    assert autotune.describe((None,), {Choice("a"): 1.0}) is None
    assert autotune.describe((None, "mm", []), [1.0]) is None


def test_an_observer_that_fails_never_reaches_the_program():
    recorder = Recorder()

    def broken(recorder, args, result):  # noqa: ANN001 - the observer signature
        raise RuntimeError("a torch release we do not know")

    recorder.result_observers[autotune.TARGET] = broken
    recorder.observe(autotune.TARGET, (), {})  # does not raise
    recorder.observe("some:other", (), {})


def test_results_are_filed_on_the_span_that_produced_them():
    recorder = Recorder()
    autotune.install(recorder)
    span = recorder.enter(TARGET_BY_NAME[autotune.TARGET], ())
    recorder.observe(autotune.TARGET, (None, "mm", [Node(4, 4)]), {Choice("aten_mm"): 0.5})
    recorder.exit(span, None)
    (artifact,) = recorder.artifacts
    assert (artifact.kind, artifact.name, artifact.span) == ("autotune", "autotune_results", span.id)


def _ancestors(span, by_id) -> list[str]:  # noqa: ANN001 - a Span and its index
    names = []
    while span.parent is not None:
        span = by_id[span.parent]
        names.append(span.target)
    return names


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_recorded_max_autotune_benchmarks_candidates_inside_lowering(path: Path):
    trace = load(path)
    by_id = {span.id: span for span in trace.spans}
    tuning = [span for span in trace.spans if span.target == autotune.TARGET]
    assert tuning, "max-autotune benchmarked nothing"
    for span in tuning:
        ancestors = _ancestors(span, by_id)
        # Benchmarked at once while lowering (CPU), or, when the winner may still change with a fused
        # epilogue, lazily when the scheduler first asks for the timings (CUDA: benchmark_epilogue_fusion).
        assert ancestors[0] == SELECT or "torch._inductor.scheduler:Scheduler.fuse_nodes" in ancestors
        assert "torch._inductor.compile_fx:fx_codegen_and_compile" in ancestors
    assert any(span.target == SELECT for span in trace.spans)
    results = [artifact for artifact in trace.artifacts if artifact.name == "autotune_results"]
    assert {artifact.span for artifact in results} <= {span.id for span in tuning}
    for artifact in results:
        timed = [choice["ms"] for choice in artifact.metadata["choices"] if choice["ms"] is not None]
        assert len(artifact.metadata["choices"]) >= 2 and timed == sorted(timed)
        assert artifact.metadata["chosen"] == artifact.metadata["choices"][0]["name"]
    summary = render(trace, analyze(trace), Style(False))
    assert "Autotuning" in summary and results[0].metadata["chosen"] in summary


def test_the_first_benchmark_s_setup_is_one_time_not_autotuning_s_cost():
    """On the recorded CUDA max-autotune run, the first candidate's benchmark also set up the benchmarker and the GPU
    driver: the part beyond a typical benchmark is said as one-time setup of compile 0/0 and is on no line."""
    from tracers.analysis.findings import findings
    from tracers.analysis.one_time import BENCHMARK, one_time

    recorded = [path for path in RECORDED if "/cuda/" in path.as_posix()]
    if not recorded:
        pytest.skip("no CUDA max-autotune recording")
    trace = load(recorded[0])
    benchmarks = sorted((span for span in trace.spans if span.target == BENCHMARK), key=lambda span: span.start_ns)
    assert len(benchmarks) >= 3
    durations = [span.duration_ns for span in benchmarks]
    expected = durations[0] - statistics.median(durations[1:])
    assert expected > 50e6  # a real setup: the first took far longer than a typical one
    parts = [part for part in one_time(trace).parts if part.what.startswith("the first kernel benchmark")]
    assert len(parts) == 1 and parts[0].ns == pytest.approx(expected, abs=1)
    assert parts[0].by_compile[0][0] == benchmarks[0].compile_id == "0/0"
    note = next(finding for finding in findings(trace) if finding.kind == "one-time")
    assert note.informational and note.compile_ids == ("0/0",) and note.parts[0].startswith("the first kernel benchmark")
