"""TORCH_TRACE logs read back: the same program gives the same compile table traced live and read from its log."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, CliRun, run_python, run_trace
from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.torchlogs.load import load_logs
from tracers.tracefile.chrome import load, write_atomic
from tracers.tracefile.torch_records import keeps

pytestmark = pytest.mark.torch

# What torch's TORCH_TRACE writes when its compile caches are off, as the tracer's cold mode turns them off.
COLD = {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}


def _log_dir(script: Path, out: Path, *args: str) -> Path:
    """Run the example as a user would, under TORCH_TRACE, in a fresh process with caches off."""
    logs = out / "logs"
    result = run_python([str(script), *args], env={**COLD, "TORCH_TRACE": str(logs),
                                                   "TORCHINDUCTOR_CACHE_DIR": str(out / "cache")})
    assert result.returncode == 0, result.stderr[-3000:]
    return logs


def _where(location: str) -> str:
    """``file.py:10``: the live tracer runs the script by the path it was given, torch logs the absolute one."""
    return location.rsplit("/", 1)[-1]


def compile_table(facts: TraceFacts) -> dict[str, object]:
    """Everything the summary's compile table and counts are made of, in comparable form."""
    return {
        "compiles": [(c.compile_id, c.frame, c.graphs, c.op_count, c.guard_count, c.fail_reason,
                      [(e.cache, e.outcome) for e in c.cache]) for c in facts.compiles],
        "breaks": [(b.compile_id, _where(b.location), b.reason, b.frame_skipped) for b in facts.graph_breaks],
        "recompiles": [(r.compile_id, r.reasons) for r in facts.recompiles],
        "caches": {cache: dict(counts) for cache, counts in facts.cache_counts.items()},
        "totals": facts.totals(),
    }


def findings_of(trace) -> list[tuple]:
    """The findings, without their costs and the informational ones (a dominant stage: times differ run to
    run) and without a recompile's (or a limit's) "called from"
    line: torch's own dynamo_start stack leaves out the calling frame in a plain run (tlparse shows the same),
    while the live tracer's hook frames shift what torch skips so that it keeps it."""
    from tracers.analysis.findings import findings

    return sorted((f.kind, f.events, f.compile_ids, f.graphs_added, f.graph_break_id,
                   None if f.kind in ("recompile", "recompile-limit") else f.where)
                  for f in findings(trace) if not f.informational)


def _from_log(logs: Path, out: Path):
    """The log's trace as ``report`` leaves it: written as our trace file (paths scrubbed) and read back."""
    loaded = load_logs(logs)
    assert loaded.warning() is None and len(loaded.logs) == 1
    path = write_atomic(loaded.logs[0].trace, out / "from-log.json")
    return load(path)


@pytest.mark.parametrize("example, args", [("graph_breaks.py", ("aot_eager",)), ("guards_recompile.py", ())])
def test_the_same_compile_table_live_and_from_the_log(example: str, args: tuple[str, ...], tmp_path: Path) -> None:
    live = run_trace(EXAMPLES / example, tmp_path / "live", "--no-page", "--quiet", script_args=args)
    assert live.returncode == 0, live.stderr[-3000:]
    from_log = _from_log(_log_dir(EXAMPLES / example, tmp_path, *args), tmp_path)
    live_facts, log_facts = live.facts(), analyze(from_log)
    assert compile_table(log_facts) == compile_table(live_facts)
    assert log_facts.totals() == live_facts.totals() and live_facts.totals().graph_breaks + live_facts.totals().recompiles
    assert findings_of(from_log) == findings_of(live.trace())
    # Same artifacts (kind, name, compile) of the records the live tracer keeps (a log keeps every other too, for
    # the page: torch_records.LOG_GRAPHS), but the decompiled Python the live tracer adds with depyf
    kept = lambda trace: sorted((a.kind, a.name, a.compile_id) for a in trace.artifacts if keeps(a.name)
                                and a.kind not in ("decompiled", "compile-call"))  # the tracer's own, not torch's
    assert kept(from_log) == kept(live.trace())
    info = from_log.info
    assert info.from_log and info.from_log["written_by"].startswith("torch 2.") and info.torch_git_sha
    assert info.torch_version == live.trace().info.torch_version and info.totals_check is None
    # torch's own timed regions make the timeline, each in a stage of the table
    stages = set(log_facts.stage_time_ns)
    assert {"frame", "bytecode", "guards", "graph", "aot"} <= stages
    assert all(span.compile_id for span in from_log.spans if span.stage == "bytecode")


def test_inductor_compile_with_backward_from_the_log(mlp_cold: CliRun, tmp_path: Path) -> None:
    """Forward and the lazily compiled backward through Inductor: one cold compile per side."""
    from_log = _from_log(_log_dir(EXAMPLES / "mlp.py", tmp_path), tmp_path)
    live_facts, log_facts = mlp_cold.facts(), analyze(from_log)
    assert compile_table(log_facts) == compile_table(live_facts)
    assert log_facts.compiles[0].frame == "MLP.forward (mlp.py:12)"  # the class, from the source beside the log
    assert {"inductor", "lowering", "scheduling", "wrapper"} <= set(log_facts.stage_time_ns)
    codes = [a for a in from_log.artifacts if a.name == "inductor_output_code"]
    assert len(codes) == 2 and all(a.payload for a in codes)  # forward and backward kernels


def test_report_reads_a_log_and_writes_our_trace_page_and_summary(tmp_path: Path) -> None:
    logs = _log_dir(EXAMPLES / "graph_breaks.py", tmp_path, "aot_eager")
    log = next(logs.iterdir())
    result = run_python(["-m", "tracers", "report", str(log), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr
    page = Path(result.stdout.strip())
    assert page.suffix == ".html" and page.exists() and (page.with_suffix(".json")).exists()
    assert "TORCH_TRACE log" in result.stderr and "Graph breaks 4" in result.stderr
    assert "Traceback" not in result.stderr
    html = page.read_text(encoding="utf-8")
    assert "TORCH_TRACE log" in html and "bytecode_tracing" in html
    # the directory it lies in works the same (one log, no rank: a single trace, not a merge)
    again = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out2")])
    assert again.returncode == 0 and Path(again.stdout.strip()).exists(), again.stderr


RECORDED = Path(__file__).resolve().parents[3] / "docs" / "_traces" / "cpu" / "2.13.0"


def test_the_sites_recorded_log_matches_the_live_recording_and_its_committed_trace(tmp_path: Path) -> None:
    """Chapter 18's log of graph_breaks.py (Inductor, caches off) read back: the compile table of the chapter's
    live recording of the same program, and the trace committed beside it is what report makes of it now."""
    log = RECORDED / "graph_breaks_torch_trace-cpu-cold.log.gz"
    from_log = _from_log(log, tmp_path)
    live = load(RECORDED / "graph_breaks-cpu-cold.json")
    if live.info.torch_version != from_log.info.torch_version:
        pytest.skip("the live recording was re-recorded with another torch; re-record the log too (chapter 18)")
    assert compile_table(analyze(from_log)) == compile_table(analyze(live))
    committed = load(RECORDED / "graph_breaks_torch_trace-cpu-cold.json")
    assert compile_table(analyze(committed)) == compile_table(analyze(from_log))


def test_real_rank_logs_are_merged_and_their_divergence_found(tmp_path: Path) -> None:
    """rank_divergent.py on 2 CPU ranks under torchrun with TORCH_TRACE: rank 1 alone recompiles."""
    logs = tmp_path / "logs"
    example = EXAMPLES / "distributed" / "rank_divergent.py"
    result = run_python(["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", str(example), "aot_eager"],
                        env={**COLD, "TORCH_TRACE": str(logs)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(path.name.split("_")[5] for path in logs.iterdir()) == ["0", "1"]  # ..._rank_<N>_...
    report = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out")])
    assert report.returncode == 0, report.stderr
    assert "Ranks diverge" in report.stderr and "first at compile 0/1" in report.stderr
    assert "rank 1 compiled 0/1" in report.stderr and "Traceback" not in report.stderr
    page = Path(report.stdout.strip())
    assert (tmp_path / "out" / "logs-ranks.json").exists() and page.exists()
    assert "Read from torch's own TORCH_TRACE logs" in page.read_text(encoding="utf-8")


TORCH_211 = Path(__file__).resolve().parents[2] / "data" / "torch-2.11.0"


def test_a_log_torch_2_11_wrote_on_the_gpu_machine_matches_its_live_trace(tmp_path: Path) -> None:
    """graph_breaks.py (aot_eager) on the GPU machine, torch 2.11.0+cu130: once under TORCH_TRACE, once under the
    tracer. The older log has no torch-version record (named in the one warning line); the compile table and the
    findings are the live trace's."""
    loaded = load_logs(TORCH_211 / "graph_breaks-aot_eager.log.gz")
    assert len(loaded.logs) == 1 and "no torch_version records" in (loaded.warning() or "")
    from_log = load(write_atomic(loaded.logs[0].trace, tmp_path / "from-log.json"))
    live = load(TORCH_211 / "graph_breaks-aot_eager-live.json")
    assert live.info.torch_version.startswith("2.11.0")
    assert compile_table(analyze(from_log)) == compile_table(analyze(live))
    assert findings_of(from_log) == findings_of(live)
