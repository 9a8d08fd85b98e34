"""CUDA graphs recorded again per input size: the hook's record of each recording, and the finding it makes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from tracers.analysis.run_time_facts import CUDA_GRAPHS, cudagraph_findings, recordings
from tracers.analysis.trace_facts import analyze
from tracers.capture import cudagraph_skips
from tracers.capture.recorder import Recorder
from tracers.tracefile.chrome import load
from tracers.tracefile.events import RunInfo, Trace
from tracers.tracefile.stages import TARGET_BY_NAME

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

COMPILE = "torch._dynamo.convert_frame:_compile"
CUDA_TRACE = ROOT / "docs" / "_traces" / "cuda" / "2.11.0" / "reduce_overhead-cuda-cold.json"


@dataclass(frozen=True)
class _FunctionId:  # torch's FunctionID: a frozen dataclass around the counter
    id: int


def _manager(functions: dict[int, tuple[str, str]]) -> SimpleNamespace:
    """The tables of torch's CUDAGraphTreeManager the hook reads: function id -> compile id, mode, static inputs."""
    ids = {number: _FunctionId(number) for number in functions}
    return SimpleNamespace(
        ids=ids, id_to_compile_id={ids[n]: compile_id for n, (compile_id, _) in functions.items()},
        id_to_mode={ids[n]: SimpleNamespace(name=mode) for n, (_, mode) in functions.items()},
        ids_to_funcs={ids[n]: SimpleNamespace(static_input_idxs=[0]) for n in functions})


def _tensor(*shape: int) -> SimpleNamespace:
    return SimpleNamespace(shape=shape)


def _trace(calls: list[tuple[int, list]], functions: dict[int, tuple[str, str]]) -> Trace:
    """A compile of ``step``, then each recording through the real hook observer, as a traced run files them."""
    recorder = Recorder()
    cudagraph_skips.install(recorder)
    span = recorder.enter(TARGET_BY_NAME[COMPILE], ())
    span.compile_id, span.frame = "0/1", "step (train.py:12)"
    recorder.exit(span, None)
    manager = _manager(functions)
    for function, inputs in calls:
        args = (manager, inputs, manager.ids[function])
        span = recorder.enter(TARGET_BY_NAME[cudagraph_skips.RECORD_TARGET], args)
        recorder.exit(span, None)
    info = RunInfo(1, "0", "2.13.0", "", "3.11", "linux", "cuda", "", "cold", [], "")
    return Trace(info, recorder.spans, recorder.artifacts)


def test_each_recording_is_filed_on_its_span_with_its_compile_and_sizes():
    weight = _tensor(64, 64)  # a static input: the same in every recording, left out
    trace = _trace([(0, [weight, _tensor(16, 64), 16])], {0: ("0/1", "FORWARD")})
    (artifact,) = trace.artifacts
    record_span = trace.spans[-1]
    assert artifact.name == cudagraph_skips.RECORDING and artifact.span == record_span.id
    assert artifact.compile_id == "0/1"
    assert artifact.metadata == {"function": 0, "mode": "FORWARD", "sizes": [[16, 64], 16], "inputs": 2}
    assert recordings(trace)[0].sizes == ((16, 64), 16)


def test_a_recording_per_input_size_is_one_finding_with_the_sizes_and_the_fix():
    weight = _tensor(64, 64)
    # cudagraphify_impl adds a function per value of the graph's int inputs: one id per size, one compile.
    functions = {n: ("0/1", "FORWARD") for n in range(3)}
    trace = _trace([(n, [weight, _tensor(size, 64), size]) for n, size in enumerate((8, 16, 32))], functions)
    (finding,) = cudagraph_findings(trace, analyze(trace))
    assert finding.kind == "cudagraph-rerecord" and finding.events == 3 and finding.compile_ids == ("0/1",)
    assert finding.what.startswith("`step` (forward) recorded 3 CUDA graphs, one per input size "
                                   "([8, 64], 8; [16, 64], 16; [32, 64], 32)")
    assert "memory pool" in finding.what
    assert "bucket" in finding.fix and 'mode="max-autotune-no-cudagraphs"' in finding.fix
    assert "cudagraph_capture_sizes" in finding.fix
    assert finding.user_line.short == "train.py:12" and finding.user_line.function == "step"
    assert len(finding.parts) == 3 and finding.parts[0].startswith("recording 1: inputs [8, 64], 8")
    assert finding.cost_s == 0.0 and finding.explained == CUDA_GRAPHS  # run time: no compile cost claimed


def test_a_forward_and_its_backward_are_one_recording_each_not_a_finding():
    functions = {0: ("0/1", "FORWARD"), 1: ("0/1", "BACKWARD")}
    trace = _trace([(0, [_tensor(1), _tensor(8)]), (1, [_tensor(1), _tensor(8)])], functions)
    assert len(recordings(trace)) == 2 and cudagraph_findings(trace, analyze(trace)) == []


def test_recorded_again_at_the_same_sizes_is_said_without_the_size_fix():
    trace = _trace([(0, [_tensor(1), _tensor(8)]), (0, [_tensor(1), _tensor(8)])], {0: ("0/1", "INFERENCE")})
    (finding,) = cudagraph_findings(trace, analyze(trace))
    assert finding.what.startswith("`step` recorded 2 CUDA graphs:") and "per input size" not in finding.what
    assert "cudagraph_mark_step_begin" in finding.fix


def test_recordings_under_a_librarys_own_compile_get_no_call_to_place_in_its_loop():
    trace = _trace([(0, [_tensor(1), _tensor(8)]), (0, [_tensor(1), _tensor(8)])], {0: ("0/1", "INFERENCE")})
    (finding,) = cudagraph_findings(trace, analyze(trace), "transformers", "reduce-overhead")
    assert "cudagraph_mark_step_begin" not in finding.fix
    assert finding.fix.startswith("transformers compiled this with CUDA graphs (mode='reduce-overhead') and makes "
                                  "the calls in its own loop")


def test_a_torch_release_without_the_tables_files_nothing_and_breaks_nothing():
    recorder = Recorder()
    cudagraph_skips.install(recorder)
    span = recorder.enter(TARGET_BY_NAME[cudagraph_skips.RECORD_TARGET], (object(), [], 0))
    recorder.exit(span, None)
    assert recorder.artifacts == []


def test_a_recorded_cuda_trace_from_before_the_hook_has_its_span_and_no_finding():
    if not CUDA_TRACE.exists():
        pytest.skip("record it on the GPU machine")
    trace = load(CUDA_TRACE)
    assert any(span.target == cudagraph_skips.RECORD_TARGET for span in trace.spans)
    assert cudagraph_findings(trace, analyze(trace)) == []  # one recording of `step`, and no artifact to group


def test_the_chapter_section_exists():
    page = (ROOT / "docs" / f"{CUDA_GRAPHS.chapter}.md").read_text()
    assert page.startswith(f"# {CUDA_GRAPHS.title}")
    slugs = {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
             for heading in re.findall(r"^#{1,3} (.+)$", page, re.M)}
    assert CUDA_GRAPHS.section in slugs


@pytest.mark.parametrize("version", ["2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0"])
def test_the_hook_target_and_what_it_reads_are_in_every_supported_release(version):
    """Statically, from each release's wheel (cached; skipped where not): the method, its arguments, the tables."""
    source = pytest.importorskip("walkthrough.source")
    from walkthrough.symbols import resolver_for

    try:
        tree = source.open_source(version, fetch=False)
    except Exception as error:  # noqa: BLE001 - no cached wheel of this release here
        pytest.skip(f"torch {version}: {error}")
    symbol = resolver_for(tree).resolve(cudagraph_skips.RECORD_TARGET)
    text = tree.read("torch/_inductor/cudagraph_trees.py")
    assert re.search(r"def record_function\(\s*self, new_inputs: list\[InputType\], function_id: FunctionID", text)
    for table in ("self.id_to_compile_id[id] = compile_id", "self.id_to_mode[id] = mode", "self.ids_to_funcs[id] ="):
        assert table in text, table
    assert "static_input_idxs: Sequence[int]" in tree.read("torch/_inductor/cudagraph_utils.py")
    assert symbol is not None


def test_a_real_cuda_recording_says_one_graph_per_sequence_length_at_the_users_line():
    """BERT under mode="reduce-overhead" with 7 sequence lengths, traced on an H200 with torch 2.11
    (tests/corpus/gpu/bert_reduce_overhead.py): torch recorded 7 CUDA graphs, and the finding says so once, with
    each recording's sizes, at the user's calling line via the model's forward."""
    from tests.conftest import ROOT
    from tracers.analysis.findings import findings

    trace = load(ROOT / "tests" / "data" / "cuda-2.11.0" / "bert_reduce_overhead-cuda-cold.json")
    [found] = [finding for finding in findings(trace) if finding.kind == "cudagraph-rerecord"]
    assert found.events == 7 and len(found.parts) == 7
    assert {part.split("inputs [4, ", 1)[1].split("]", 1)[0] for part in found.parts} == \
        {"16", "24", "32", "40", "48", "56", "64"}
    assert found.where == "modeling_bert.py:620 via bert_reduce_overhead.py:16"
    assert "Pad or bucket the inputs" in found.fix
