"""tlparse's own test inputs (tests/data/tlparse, its license beside them): for each of its integration tests that
reads an input, the fact it asserts is in our summary or page, or the test says why not and what we print."""

from __future__ import annotations

import gzip
import html
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_python
from tracers.analysis.failures import compile_failures, failed_text
from tracers.analysis.finding_type import Ledger
from tracers.analysis.findings import findings
from tracers.analysis.trace_facts import analyze
from tracers.tracefile.torch_records import DEBUG_PAYLOAD_CHARS, RecordTranslator
from tracers.ranks.page import render_ranks
from tracers.ranks.summary import render, report
from tracers.report.fragment import render_fragment, render_header
from tracers.report.options import PAGE_ARTIFACTS, RenderOptions
from tracers.terminal import summary
from tracers.terminal.style import Style
from tracers.torchlogs.merged_run import merged_run
from tracers.torchlogs.load import LogError, load_logs
from tracers.torchlogs.convert import FAILED_GRAPH
from tracers.torchlogs.records import TRIMMED

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"
INPUTS = DATA / "tlparse" / "inputs"
EXEC_ORDER = DATA / "tlparse" / "graph_exec_order_tests"
COLLECTIVE_DIVERGENCE = DATA / "torch_trace-2.11.0-collective-divergence"
PLAIN = Style(False)


def _single(name: str):
    loaded = load_logs(INPUTS / f"{name}.gz")
    assert not loaded.ranked
    trace = loaded.logs[0].trace
    return loaded, trace, analyze(trace)


def _ranks(path: Path):
    loaded = load_logs(path)
    result = report(merged_run(loaded, path.name))
    return loaded, result, render(result, PLAIN), render_ranks(result)


def _artifacts(trace, compile_id: str) -> set[str]:
    return {artifact.name for artifact in trace.artifacts if artifact.compile_id == compile_id}


def _copy(source: Path, directory: Path, name: str) -> None:
    """A fixture under another name (tlparse's tests copy inputs into a temporary directory as rank logs)."""
    directory.mkdir(exist_ok=True)
    shutil.copyfile(source, directory / name)


# -- single logs -----------------------------------------------------------------------------------------------

def test_parse_simple() -> None:
    """tlparse: compile 0/0 has dynamo_output_graph, aot_forward_graph (its prefix matches the file of the
    aot_forward_graph_fw_metadata record; the graph itself is an inference graph), inductor_post_grad_graph and
    output code."""
    loaded, trace, facts = _single("simple.log")
    assert {"dynamo_output_graph", "aot_inference_graph", "inductor_post_grad_graph", "inductor_output_code"} <= \
        _artifacts(trace, "0/0")
    assert [c.compile_id for c in facts.compiles] == ["0/0"] and facts.compiles[0].graphs == 1
    assert "missing final newline" in loaded.warning()  # the one oddity of this log, read through


def test_parse_simple_corrupted_json() -> None:
    """tlparse counts one payload whose md5 fails (``fail_payload_md5: 1``) and reads the rest: so do we."""
    loaded, trace, facts = _single("simple_corrupted_json.log")
    assert loaded.logs[0].problems.counts["damaged payload"] == 1
    assert "1 damaged payload" in loaded.warning()
    assert "dynamo_output_graph" in _artifacts(trace, "0/0") and facts.compiles[0].graphs == 1


def test_parse_compilation_metrics() -> None:
    """tlparse: compiles 0/0, 1/0 and 2/0, each with its graph and compilation_metrics."""
    _, trace, facts = _single("comp_metrics.log")
    assert [c.compile_id for c in facts.compiles] == ["0/0", "1/0", "2/0"]
    for cid in ("0/0", "1/0", "2/0"):
        assert {"dynamo_output_graph", "compilation_metrics"} <= _artifacts(trace, cid)


@pytest.mark.parametrize("name", ["comp_metrics.log", "artifacts.log"])
def test_compile_times_from_metrics_where_no_region_is_timed(name: str) -> None:
    """Logs without torch's timed regions: each compile's time and frame come from its compilation_metrics
    (entire_frame_compile_time_s in these), and the summary lists findings, never "Nothing was compiled"."""
    _, trace, facts = _single(name)
    assert not trace.spans and facts.compiles
    metrics = {a.compile_id: a.metadata for a in trace.artifacts if a.name == "compilation_metrics"}
    for compile_facts in facts.compiles:
        assert compile_facts.time_ns == round(metrics[compile_facts.compile_id]["entire_frame_compile_time_s"] * 1e9)
        assert compile_facts.frame and not compile_facts.frame.startswith("?")
    text = summary.render(trace, facts, PLAIN)
    assert "Nothing was compiled" not in text and "Findings" in text and " 0 ns" not in text


def test_parse_compilation_failures() -> None:
    """tlparse: compile 0/0 with its graph and metrics; the failure is in the metrics record. The backend raised
    on that graph, so it is kept under the name that says so, and torch counts no graph (issue 54 item 6)."""
    _, trace, facts = _single("comp_failure.log")
    assert {FAILED_GRAPH, "compilation_metrics"} <= _artifacts(trace, "0/0") and facts.graph_count == 0
    assert facts.compiles[0].fail_reason and "broken backend" in facts.compiles[0].fail_reason


def test_a_failed_compile_is_a_finding_and_the_header_says_it_failed() -> None:
    """The backend raised (BackendCompilerFailed): one finding names the exception, torch's reason and the user's
    line that called the compiled function, costed at the whole compile; no restart is made of Dynamo's time
    before the failure; both headers say the compile failed."""
    _, trace, facts = _single("comp_failure.log")
    [failed] = findings(trace, facts)
    assert failed.kind == "compile-failed" and "BackendCompilerFailed" in failed.what and "`fn`" in failed.what
    assert failed.where == "test_misc.py:10765" and failed.compile_ids == ("0/0",)
    assert any("RuntimeError: broken backend" in part for part in failed.parts)
    assert failed.cost_s == facts.compiles[0].time_ns / 1e9 > 0
    text = summary.render(trace, facts, PLAIN)
    header = text.splitlines()[0]
    assert header.endswith("compile 0/0 failed (BackendCompilerFailed)") and "— ok" not in header
    assert "restarted" not in text
    assert "compile 0/0 failed (BackendCompilerFailed)" in render_header(trace)


def test_dynamo_declining_a_frame_is_no_compile_failure() -> None:
    """fail_type Unsupported (a graph break Dynamo could not resume from, the recompile limit) is said by the
    break and limit findings: no compile-failed finding, no failure in the header."""
    _, trace, facts = _single("comp_failure.log")
    facts.compiles[0].fail_type = "Unsupported"
    assert not failed_text(facts)
    assert not compile_failures(trace, facts, Ledger({c.compile_id: c for c in facts.compiles}))


def test_parse_artifact() -> None:
    """tlparse lists fx_graph_cache_hash under 0/0: so does our page, folded, beside the compile's metrics."""
    _, trace, facts = _single("artifacts.log")
    assert "fx_graph_cache_hash" in _artifacts(trace, "0/0") and "fx_graph_cache_hash" not in trace.info.dropped_records
    assert [c.compile_id for c in facts.compiles] == ["0/0"]
    page = render_fragment(trace, facts, options=RenderOptions(artifacts=PAGE_ARTIFACTS))
    compile_section = page.split('data-compile="0/0"')[-1]
    for name in ("fx_graph_cache_hash", "compilation_metrics"):
        assert f'<details class="wt-artifact"' in compile_section and f">{name}</code>" in compile_section


def test_debugging_records_are_kept_from_logs_only_and_bounded() -> None:
    """fx_graph_runnable and the like are kept when read from a log (written already), cut at DEBUG_PAYLOAD_CHARS
    with their whole size recorded; in-process the translator still drops them (torch would build them)."""
    live, from_log = RecordTranslator(), RecordTranslator(from_log=True)
    metadata = {"artifact": {"name": "fx_graph_runnable", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0}
    payload = "x = 1\n" * DEBUG_PAYLOAD_CHARS
    assert live.translate(metadata, payload) is None and live.dropped["fx_graph_runnable"] == 1
    kept = from_log.translate(metadata, payload)
    assert kept is not None and kept.kind == "debug" and kept.payload_size == len(payload)
    assert kept.payload is not None and len(kept.payload) < DEBUG_PAYLOAD_CHARS + 100 and "cut at" in kept.payload


def test_parse_chromium_event() -> None:
    """tlparse writes chromium_events.json; ours is the timeline of torch's timed regions."""
    _, trace, facts = _single("chromium_events.log")
    assert trace.spans and trace.spans[0].target == "dynamo_timed:dynamo" and "frame" in facts.stage_time_ns


def test_cache_hit_miss() -> None:
    """tlparse: compile 1/0 has fx_graph cache misses and a hit. The test behind the log resets Dynamo between
    runs, so torch's ids start again at 0/0; we keep the runs apart (``r1:``, ``r2:``) where tlparse lumps them."""
    _, _, facts = _single("cache_hit_miss.log")
    outcomes = [(c.compile_id, e.outcome) for c in facts.compiles for e in c.cache if e.cache == "fx_graph"]
    assert outcomes == [("1/0", "miss"), ("r1:1/0", "hit"), ("r2:1/0", "miss")]


# What tlparse --export lists as the log's problem ("failures"), in our words, per input.
EXPORT_PROBLEMS = {
    "export.log": "data-dependent Eq((((-u0)//3)) + 5, 0) could not be decided and was taken as False",
    "export_guard_added.log": "a guard was evaluated, Eq(s0, 3)",
}
# Lines that would be false beside an export log: it never meant to compile, and it had a problem.
FALSE_BESIDE_EXPORT = ("Nothing was compiled", "No problems found", "an older torch, or cut short", "Graphs 0",
                       "Traceback")


@pytest.mark.parametrize("name", ["export.log", "export_guard_added.log"])
def test_export_report(name: str, tmp_path: Path) -> None:
    """tlparse --export shows exported_program and symbolic guards: export's own content is out of scope. We read
    the log whole (its blank payload lines, trimmed by a copy, read as empty lines: no damage, as tlparse reads it),
    list no compile, and `report` says in one line that the log is torch.export's, what it holds (1 exported
    program, the problem tlparse lists) and that tlparse --export shows the rest, on the terminal and the page."""
    loaded, _, facts = _single(name)
    counts = loaded.logs[0].problems.counts
    assert counts[TRIMMED] == 1 and not counts["damaged payload"] and not counts["blank line"]
    assert not counts["corrupt line"] and not facts.compiles
    result = run_python(["-m", "tracers", "report", str(INPUTS / f"{name}.gz"), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    # the head names the log's kind and its problem (issue 54: it said "torch.compile trace … — ok")
    assert any(line.startswith("torch.export log — ") and line.endswith("— 1 export problem") for line in lines)
    said = [line.strip() for line in lines if "torch.export" in line and not line.startswith("torch.export log — ")]
    assert len(said) == 1, result.stderr
    line = said[0]
    assert line.startswith("This log is from torch.export, not torch.compile: 1 exported program (")
    assert "1 problem torch.export met: " + EXPORT_PROBLEMS[name] in line
    assert "export's own content is not analysed here (tlparse --export shows it)" in line
    assert not [false for false in FALSE_BESIDE_EXPORT if false in result.stderr], result.stderr
    page = Path(result.stdout.strip()).read_text(encoding="utf-8")
    assert html.escape(line) in page  # escaped as all a log's text is: the expression holds < and >
    assert not [false for false in FALSE_BESIDE_EXPORT if false in page]


@pytest.mark.parametrize("name", [
    "inductor_provenance_aot_cuda_log.txt", "inductor_provenance_aot_debug_handle_log.txt",
    "inductor_provenance_aot_log.txt", "inductor_provenance_aot_log_old.txt", "inductor_provenance_jit_cuda_log.txt",
    "inductor_provenance_jit_log.txt", "inductor_provenance_jit_debug_handle_log.txt",
    "inductor_provenance_extended_log.txt"])
def test_provenance_tracking(name: str) -> None:
    """tlparse -i maps output code lines to FX nodes (its highlighting is out of scope). We read each log without
    damage and keep the output code and the provenance records, listed on the page
    (``inductor_provenance_long_log.txt`` is absent: stored upstream as an unreadable blob)."""
    loaded, trace, _ = _single(name)
    assert not loaded.logs[0].problems.counts.get("corrupt line") and trace.spans
    names = {artifact.name for artifact in trace.artifacts}
    provenance = {"inductor_provenance_tracking_node_mappings", "inductor_triton_kernel_to_post_grad_nodes"}
    assert names & provenance and not set(trace.info.dropped_records) & provenance
    # the JIT logs' output code is kept (AOTInductor's logs, and the extended one, have none)
    assert "inductor_output_code" in names or "aot" in name or "extended" in name
    # its last record, whole JSON without a final newline (its md5 off), is read, not dropped as cut (issue 54)
    assert "extended" not in name or "inductor_provenance_tracking_kernel_stack_traces" in names


# -- rank directories ------------------------------------------------------------------------------------------

def test_all_ranks_basic_and_diverging_compile_ids() -> None:
    """tlparse: a page per rank 0–3 and "Diverging Compilation IDs detected"; rank 1's CRLF log read whole."""
    loaded, result, text, page = _ranks(INPUTS / "multi_rank_logs")
    assert [log.rank for log in loaded.logs] == [0, 1, 2, 3] and result.run.kind == "ranks"
    assert [slot.name for slot in result.run.ranks] == ["rank 0", "rank 1", "rank 2", "rank 3"]
    rank1 = next(log for log in loaded.logs if log.rank == 1)
    assert rank1.problems.counts == {"line with a Windows ending (CRLF)": 25720}
    assert [row.compiles for row in result.rows] == [1, 15, 1, 7] and result.rows[1].ended == "ok"
    assert "ranks 1, 3 compiled 0/1–0/6 (6 compiles), which ranks 0, 2 did not" in text
    assert "rank 1 compiled 0/7–0/14 (8 compiles), which ranks 0, 2, 3 did not" in text
    assert "ranks 1, 3 compiled 0/1–0/6" in page


def test_diverging_cache_events_multiple_groups() -> None:
    """tlparse: "Diverging Cache hit/miss patterns detected" on multi_rank_logs, ranks grouped by pattern."""
    _, result, _, _ = _ranks(INPUTS / "multi_rank_logs")
    [cache] = [d for d in result.divergence.differences if d.aspect == "cache hit/miss pattern"]
    assert [ranks for ranks, _ in cache.groups] == [(0, 2), (1,), (3,)]


def test_all_ranks_messy_input() -> None:
    """tlparse: ranks 0 and 1 found beside an empty another.log and some_other_file.txt."""
    loaded, result, text, _ = _ranks(INPUTS / "multi_rank_messy_input")
    assert [log.rank for log in loaded.logs] == [0, 1]
    assert set(loaded.foreign) == {"another.log", "some_other_file.txt"}
    assert "No divergence" in text


def test_all_ranks_no_logs(tmp_path: Path) -> None:
    """tlparse fails on a directory without rank logs; we say so in one line."""
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(LogError, match="no TORCH_TRACE log"):
        load_logs(tmp_path)


def test_all_ranks_chromium_events_combined() -> None:
    """tlparse: one combined timeline with a process per rank; our merged run has each rank's regions."""
    _, result, _, _ = _ranks(INPUTS / "multi_rank_logs")
    assert all(trace.spans for _, trace in result.run.present)


def test_no_compile_id_or_cache_divergence(tmp_path: Path) -> None:
    """tlparse: simple.log as ranks 0 and 1 has no diverging compile ids, cache_hit_miss.log twice no cache
    divergence."""
    for name, directory in (("simple.log.gz", tmp_path / "a"), ("cache_hit_miss.log.gz", tmp_path / "b")):
        for rank in (0, 1):
            _copy(INPUTS / name, directory, f"dedicated_log_torch_trace_rank_{rank}.log.gz")
        _, result, text, _ = _ranks(directory)
        assert result.divergence.differences == () and "No divergence" in text


def test_diverging_cache_events_warning(tmp_path: Path) -> None:
    """tlparse: cache_hit_miss.log as rank 0 and simple.log as rank 1 diverge on cache hits and misses."""
    _copy(INPUTS / "cache_hit_miss.log.gz", tmp_path, "dedicated_log_torch_trace_rank_0.log.gz")
    _copy(INPUTS / "simple.log.gz", tmp_path, "dedicated_log_torch_trace_rank_1.log.gz")
    _, result, text, _ = _ranks(tmp_path)
    assert any(d.aspect == "cache hit/miss pattern" for d in result.divergence.differences)
    assert "cache hits and misses differ" in text


def test_collective_schedule_with_divergence() -> None:
    """tlparse: "Diverging collective operation sequences", ranks 0, 2 against rank 1 (file names give the ranks;
    every log's records say rank 0, which the warning reports)."""
    loaded, result, text, page = _ranks(INPUTS / "multi_rank_schedule")
    assert [log.rank for log in loaded.logs] == [0, 1, 2]
    assert "ranks 1, 2: their records say rank 0 (the ranks in their file names are used)" in loaded.notes()
    [schedule] = [d for d in result.divergence.differences if d.aspect == "collective schedule"]
    assert [ranks for ranks, _ in schedule.groups] == [(0, 2), (1,)]
    said = "collective 3 is reduce_scatter_tensor on ranks 0, 2 and all_reduce_ on rank 1 (compile 0/0)"
    assert said in text and said in page


def test_collective_schedule_no_divergence(tmp_path: Path) -> None:
    for name in ("dedicated_log_torch_trace_rank_0_6u3fubwl.log.gz", "dedicated_log_torch_trace_rank_2.log.gz"):
        _copy(INPUTS / "multi_rank_schedule" / name, tmp_path, name)
    _, result, text, _ = _ranks(tmp_path)
    assert not any(d.aspect == "collective schedule" for d in result.divergence.differences)
    assert "collective schedules" in text  # said among what was compared


def test_runtime_analysis_working(tmp_path: Path) -> None:
    """tlparse: ranks 0–3 of multi_rank_runtime get a runtime analysis with a delta per graph."""
    for rank in range(4):
        name = f"dedicated_log_torch_trace_rank_{rank}.log.gz"
        _copy(INPUTS / "multi_rank_runtime" / name, tmp_path, name)
    _, result, _, page = _ranks(tmp_path)
    estimates = result.divergence.estimates
    assert [e.compile_id for e in estimates] == ["0/0", "0/1"]
    assert all([rank for rank, _ in e.by_rank] == [0, 1, 2, 3] and e.spread_ns >= 0 for e in estimates)
    assert "Inductor's runtime estimates per graph" in page and "spread" in page


def test_runtime_analysis_mismatched_graphs_and_tensor_meta_groups() -> None:
    """tlparse: all of multi_rank_runtime: "Speed analysis not available" (rank 4 lacks a graph), and divergent
    tensor meta with ranks 5, 6 grouped; rank 6's records say rank 1, its name wins."""
    loaded, result, text, _ = _ranks(INPUTS / "multi_rank_runtime")
    assert [log.rank for log in loaded.logs] == list(range(7))
    assert "ranks 5, 6: their records say rank 1 (the ranks in their file names are used)" in loaded.notes()
    assert not result.divergence.estimates
    assert any("runtime estimates are not compared" in note and "rank 4: 1 graph" in note
               for note in result.divergence.notes)
    [meta] = [d for d in result.divergence.differences if d.aspect == "Inductor tensor metadata"]
    assert (5, 6) in [ranks for ranks, _ in meta.groups]


def test_collectives_parity_detects_mismatch() -> None:
    """tlparse: rank 0's output code misses 1 wait in 0/0 and 3 in 0/1."""
    _, result, text, page = _ranks(INPUTS / "collectives_parity")
    said = ("0/0 on rank 0: 1 collective, 0 waits (1 missing); 0/1 on rank 0: 3 collectives, 0 waits (3 missing)")
    assert any(said in note for note in result.divergence.notes) and said in text and said in page


def test_graph_execution_order_diagnostics() -> None:
    """tlparse: "Graph execution order differs across ranks"; cache hit/miss sequence consistent."""
    _, result, text, _ = _ranks(EXEC_ORDER)
    aspects = [d.aspect for d in result.divergence.differences]
    assert "graph execution order" in aspects and "cache hit/miss pattern" not in aspects
    assert "graphs ran in another order: call 1 is 0/1 on rank 0 and 0/0 on rank 1" in text


# -- directories as users collect them -------------------------------------------------------------------------

def test_renamed_crlf_gzipped_and_mixed_directories_label_every_rank_by_its_file(tmp_path: Path) -> None:
    with gzip.open(INPUTS / "multi_rank_logs" / "dedicated_log_torch_trace_rank_1.log.gz", "rb") as stream:
        (tmp_path / "dedicated_log_torch_trace_rank_1.log").write_bytes(stream.read())  # CRLF, uncompressed
    _copy(INPUTS / "simple.log.gz", tmp_path, "dedicated_log_torch_trace_rank_0_x1y2.log.gz")  # renamed, gzip
    (tmp_path / "dedicated_log_torch_trace_rank_2.log").write_bytes(b"")  # an empty rank log
    (tmp_path / "junk.bin").write_bytes(b"\x00\x01")
    loaded, result, text, _ = _ranks(tmp_path)
    assert [(log.rank, log.source) for log in loaded.logs] == [
        (0, "dedicated_log_torch_trace_rank_0_x1y2.log.gz"), (1, "dedicated_log_torch_trace_rank_1.log")]
    assert loaded.unreadable == ("dedicated_log_torch_trace_rank_2.log",) and loaded.foreign == ("junk.bin",)
    assert [slot.name for slot in result.run.ranks][:2] == ["rank 0", "rank 1"] and "process" not in text.split("\n")[0]


def test_two_logs_of_a_rank_say_which_is_read_and_run_picks_the_other(tmp_path: Path) -> None:
    source = INPUTS / "multi_rank_schedule"
    _copy(source / "dedicated_log_torch_trace_rank_0_6u3fubwl.log.gz", tmp_path, "dedicated_log_torch_trace_rank_0_a.log.gz")
    _copy(INPUTS / "simple.log.gz", tmp_path, "dedicated_log_torch_trace_rank_0_b.log.gz")
    latest = load_logs(tmp_path)
    first = load_logs(tmp_path, run=1)
    [used] = [log.source for log in latest.logs]
    [other] = [log.source for log in first.logs]
    assert used != other and {used, other} == {"dedicated_log_torch_trace_rank_0_a.log.gz",
                                                "dedicated_log_torch_trace_rank_0_b.log.gz"}
    assert f"rank 0 has 2 logs: read {used} (the latest), left out {other}" in latest.warning()
    assert "--run 1 … 2" in latest.warning()


# -- the committed two-rank recording with a collective-order difference ---------------------------------------

def test_a_collective_order_difference_names_the_collective_and_the_ranks() -> None:
    loaded, result, text, page = _ranks(COLLECTIVE_DIVERGENCE)
    assert [log.rank for log in loaded.logs] == [0, 1] and loaded.foreign == ("README.md", "coll_div.py")
    [schedule] = [d for d in result.divergence.differences if d.aspect == "collective schedule"]
    said = "collective 2 is none (the sequence ended) on rank 0 and all_reduce_ on rank 1 (compile 0/0)"
    assert said in schedule.said and said in page and "collective schedule: collective schedules differ" in text
    [graphs] = [d for d in result.divergence.differences if d.aspect == "collectives"]
    assert graphs.said == ("the compiled graphs issue all_reduce_ f32[64, 64] on rank 0 and all_reduce_ f32[64, 64], "
                           "all_reduce_ f32[64] on rank 1")
    assert graphs.said in page
    assert result.divergence.first.said == "`rank` is 0 on rank 0 and 1 on rank 1"  # the guard that set them apart
