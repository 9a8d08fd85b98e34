"""Distributed runs on CPU (gloo, 2 ranks): a trace per rank, their merge on one clock, divergence found."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tracers.terminal.style import Style
from tracers.ranks.clock import BY_WALL_CLOCK, SAME_HOST, align
from tracers.ranks.collectives import collectives_in
from tracers.ranks.divergence import compare
from tracers.capture.launcher import RankEnvironmentError, detect, leads_output
from tracers.ranks.merge import MergeError, find_rank_files, load_merged, load_run
from tracers.ranks.summary import render, report
from tracers.tracefile.chrome import load
from tracers.tracefile.events import RunInfo

from tests.conftest import EXAMPLES, SCRIPTS, run_python

pytestmark = pytest.mark.torch

DISTRIBUTED = EXAMPLES / "distributed"


@pytest.fixture(scope="module")
def divergent(tmp_path_factory: pytest.TempPathFactory):
    """The rank-divergent example through ``trace --nproc 2``: rank files, their merge and the summary."""
    out = tmp_path_factory.mktemp("divergent")
    result = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(out),
                         str(DISTRIBUTED / "rank_divergent.py"), "aot_eager"])
    return out, result


@pytest.fixture(scope="module")
def ddp(tmp_path_factory: pytest.TempPathFactory):
    """The DDP example as a user launches it: torchrun starting the tracer on every rank."""
    out = tmp_path_factory.mktemp("ddp")
    result = run_python(["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m", "tracers",
                         "trace", "--quiet", "--out", str(out), str(DISTRIBUTED / "ddp.py"), "aot_eager"])
    return out, result


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("crash")
    result = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(out), str(SCRIPTS / "rank_crash.py")])
    return out, result


def test_torchrun_writes_one_trace_per_rank_with_rank_metadata(ddp):
    out, result = ddp
    assert result.returncode == 0, result.stderr[-3000:]
    names = sorted(path.name for path in out.glob("*.json"))
    assert names == ["ddp-cpu-cold-rank0.json", "ddp-cpu-cold-rank1.json"]
    for rank in (0, 1):
        info = load(out / f"ddp-cpu-cold-rank{rank}.json").info
        assert info.rank["rank"] == rank and info.rank["world_size"] == 2
        assert info.rank["local_rank"] == rank and info.rank["launcher"] == "torchrun"
        assert info.rank["run_id"] == load(out / "ddp-cpu-cold-rank0.json").info.rank["run_id"]  # one launch
        assert info.rank["backend"] == "gloo"  # read while the group existed: the script destroys it
        assert info.rank["host"] and info.clock["perf_ns"] > 0 and info.clock["wall_ns"] > 0
        assert info.device == "cpu" and info.status == "ok"


def test_ddp_counts_agree_with_torch_and_show_ddpoptimizer_split(ddp):
    out, _ = ddp
    for rank in (0, 1):
        trace = load(out / f"ddp-cpu-cold-rank{rank}.json")
        check = trace.info.totals_check
        assert check["mismatches"] == [] and not check["skipped"], check
        names = [artifact.name for artifact in trace.artifacts]
        assert names.count("optimize_ddp_split_graph") == 1
        # Four 1 MiB layers, a 1 MiB bucket cap: a piece per bucket, each counted as torch counts it.
        pieces = names.count("optimize_ddp_split_child")
        assert pieces >= 2
        assert check["torch"]["graph_breaks"] >= pieces


def test_ddp_ranks_do_not_diverge(ddp):
    out, _ = ddp
    result = report(load_run(find_rank_files([str(out)])))
    assert result.divergence.ranks == (0, 1)
    assert result.divergence.differences == ()
    assert [row.graphs for row in result.rows] == [1, 1]


def test_nproc_merges_with_a_process_per_rank_on_one_clock(divergent):
    out, result = divergent
    assert result.returncode == 0, result.stderr[-3000:]
    merged = out / "rank_divergent-cpu-cold-ranks.json"
    assert {path.name for path in out.glob("*.json")} == {
        "rank_divergent-cpu-cold-rank0.json", "rank_divergent-cpu-cold-rank1.json", merged.name}
    assert (out / "rank_divergent-cpu-cold-ranks.html").exists()
    raw = json.loads(merged.read_text())
    names = {event["pid"]: event["args"]["name"] for event in raw["traceEvents"]
             if event["ph"] == "M" and event["name"] == "process_name"}
    assert names == {0: "rank 0", 1: "rank 1"}
    # Same host: the ranks' own monotonic clock, unshifted. A span's place on the merged axis is its
    # start on that clock minus the earliest start of any rank.
    ranks = {rank: load(out / f"rank_divergent-cpu-cold-rank{rank}.json") for rank in (0, 1)}
    origin = min(min(span.start_ns for span in trace.spans) for trace in ranks.values())
    for rank, trace in ranks.items():
        first = min(trace.spans, key=lambda span: span.start_ns)
        event = next(e for e in raw["traceEvents"] if e["pid"] == rank and e.get("ph") == "X"
                     and e["args"]["id"] == first.id)
        assert event["ts"] == pytest.approx((first.start_ns - origin) / 1000, abs=0.01)
    meta = raw["otherData"]["torch_compile_walkthrough_ranks"]
    assert meta["alignment"] == SAME_HOST
    # The diagnostics travel in the merged trace too: as data, and as a mark across the timeline where
    # the first difference starts (rank 1's recompile).
    assert meta["diagnostics"]["divergence"][0]["compile_id"] == "0/1"
    assert [row["recompiles"] for row in meta["diagnostics"]["ranks"]] == [0, 1]
    mark = next(e for e in raw["traceEvents"] if e.get("cat") == "divergence")
    recompile = next(span for span in ranks[1].spans if span.compile_id == "0/1")
    assert mark["ph"] == "i" and mark["s"] == "g" and mark["pid"] == 1
    assert mark["ts"] == pytest.approx((recompile.start_ns - origin) / 1000, abs=0.01)


def test_divergence_names_the_recompiling_rank_and_the_users_line(divergent):
    out, result = divergent
    run = load_merged(out / "rank_divergent-cpu-cold-ranks.json")  # the merged file reads back whole
    facts = report(run)
    first = facts.divergence.first
    assert first is not None and first.compile_id == "0/1"
    assert first.groups == (((1,), "compiled 0/1"), ((0,), "did not compile it"))
    assert first.said == "rank 1 compiled 0/1 (1 compile), which rank 0 did not"
    assert first.detail == ("0/1 on rank 1: recompiled because the size of `x` changed (dimension 0: 8 before, now 5)",)
    line = next(n for n, text in enumerate((DISTRIBUTED / "rank_divergent.py").read_text().splitlines(), 1)
                if "loss = step(" in text)
    assert first.line.startswith(f"rank_divergent.py:{line}")
    assert [row.recompiles for row in facts.rows] == [0, 1]
    assert "Ranks diverge" in result.stderr and f"rank_divergent.py:{line}" in result.stderr
    # Both ranks' graphs hold the same all-reduce, read from the graphs torch printed.
    for rank, trace in run.present:
        ops = {c.op for c in collectives_in([a for a in trace.artifacts if a.compile_id == "0/0"])}
        assert ops == {"all_reduce"}


def test_collective_differences_are_divergence(divergent):
    """Rank 1's graphs with the all-reduce turned into an all-gather: the difference a hang starts from."""
    out, _ = divergent
    run = load_run([out / "rank_divergent-cpu-cold-rank0.json", out / "rank_divergent-cpu-cold-rank1.json"])
    traces = dict(run.present)
    traces[1].artifacts[:] = [
        dataclasses.replace(a, payload=a.payload.replace("_c10d_functional.all_reduce",
                                                         "_c10d_functional.all_gather_into_tensor"))
        if a.payload and a.compile_id == "0/0" else a for a in traces[1].artifacts]
    aspects = [(d.compile_id, d.aspect) for d in compare(traces).differences]
    assert ("0/0", "collectives") in aspects


def test_a_crashed_rank_still_contributes_and_is_named(crashed):
    out, result = crashed
    assert result.returncode != 0
    run = load_merged(out / "rank_crash-cpu-cold-ranks.json")
    rank0, rank1 = run.ranks
    assert rank1.trace.info.status == "error" and "rank 1's own failure" in rank1.trace.info.error
    assert rank1.label == "rank 1 — crashed"
    # torchrun stops the surviving rank with SIGTERM: its partial trace is written all the same.
    assert rank0.trace.info.status == "terminated" and rank0.label == "rank 0 — killed (SIGTERM)"
    assert all(trace.spans for _, trace in run.present)  # each compiled before it ended
    assert "rank 1: crashed: RuntimeError: rank 1's own failure" in result.stderr
    assert "rank 0: killed (SIGTERM)" in result.stderr


def test_environment_detection():
    assert detect({}) is None
    env = detect({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
                  "TORCHELASTIC_RUN_ID": "x"})
    assert (env.rank, env.world_size, env.local_rank, env.local_world_size, env.launcher) == (3, 4, 1, 2, "torchrun")
    spawned = detect({"RANK": "1", "WORLD_SIZE": "2"})  # a program's own launcher (mp.spawn) sets only these
    assert (spawned.local_rank, spawned.launcher) == (1, "env")
    with pytest.raises(RankEnvironmentError, match="RANK='x'"):
        detect({"RANK": "x", "WORLD_SIZE": "2"})
    with pytest.raises(RankEnvironmentError, match="outside"):
        detect({"RANK": "2", "WORLD_SIZE": "2"})
    # One summary and one spinner per run on the terminal: rank 0's (or the single process's).
    assert leads_output({}) and leads_output({"RANK": "0", "WORLD_SIZE": "2"})
    assert not leads_output({"RANK": "1", "WORLD_SIZE": "2"})


def _info(rank: int, host: str, perf: int, wall: int) -> RunInfo:
    info = RunInfo(1, "t", "2.13.0", "", "3.11", "Linux", "cpu", "", "cold", [], "")
    info.rank = {"rank": rank, "host": host, "world_size": 3}
    info.clock = {"perf_ns": perf, "wall_ns": wall}
    return info


def test_clocks_of_several_hosts_are_placed_by_their_wall_clock():
    infos = {0: _info(0, "a", 1_000, 10_000), 1: _info(1, "a", 1_500, 10_600), 2: _info(2, "b", 50, 10_100)}
    alignment = align(infos)
    assert alignment.method == BY_WALL_CLOCK
    # Ranks 0 and 1 share host a: one offset, rank 0's. Host b's clock is 10050 behind the wall clock.
    assert alignment.offsets_ns == {0: 9_000, 1: 9_000, 2: 10_050}


def test_merge_refuses_what_does_not_belong_together(tmp_path, divergent, ddp):
    with pytest.raises(MergeError, match="no such file"):
        find_rank_files([str(tmp_path / "nope")])
    with pytest.raises(MergeError, match="different runs"):
        load_run(find_rank_files([str(divergent[0]), str(ddp[0])]))
    broken = tmp_path / "x-cpu-cold-rank0.json"
    broken.write_text("{")
    with pytest.raises(MergeError, match="not valid JSON"):
        load_run([broken])
    result = run_python(["-m", "tracers", "merge", str(tmp_path / "nope")])
    assert result.returncode == 2 and result.stderr.startswith("merge: ") and "Traceback" not in result.stderr
    # A folder used again: rank 1's file is left from an earlier launch of the same script.
    stale = tmp_path / "again"
    stale.mkdir()
    rank0 = ddp[0] / "ddp-cpu-cold-rank0.json"
    run_id = load(rank0).info.rank["run_id"]
    (stale / rank0.name).write_text(rank0.read_text())
    earlier = (ddp[0] / "ddp-cpu-cold-rank1.json").read_text().replace(f'"{run_id}"', '"an-earlier-launch"')
    (stale / "ddp-cpu-cold-rank1.json").write_text(earlier)
    result = run_python(["-m", "tracers", "merge", str(stale)])
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("merge: these rank traces come from different runs") and "an-earlier-launch" in result.stderr


def test_nproc_checks_its_input_before_launching(tmp_path):
    missing = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(tmp_path), "missing.py"])
    assert missing.returncode == 2 and "missing.py: no such file" in missing.stderr and "torchrun" not in missing.stderr
    zero = run_python(["-m", "tracers", "trace", "--nproc", "0", str(DISTRIBUTED / "ddp.py")])
    assert zero.returncode == 2 and "--nproc 0" in zero.stderr


def test_nproc_refuses_to_nest_inside_a_launcher(tmp_path):
    result = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(tmp_path),
                         str(DISTRIBUTED / "ddp.py")], env={"RANK": "0", "WORLD_SIZE": "2"})
    assert result.returncode == 2 and "inside a distributed launcher" in result.stderr


def test_single_process_traces_keep_their_names(tmp_path):
    """Outside a launcher nothing changes: no rank suffix, no rank metadata (clock anchor only)."""
    env = {key: "" for key in ("RANK", "WORLD_SIZE")}
    result = run_python(["-m", "tracers", "trace", "--no-page", "--quiet", "--out", str(tmp_path),
                         str(SCRIPTS / "raises.py")], env=env)
    assert result.returncode == 1
    info = load(tmp_path / "raises-cpu-cold.json").info
    assert info.rank is None and info.clock["wall_ns"] > 0



def test_a_rank_without_a_trace_is_named(divergent):
    out, _ = divergent
    run = load_run([out / "rank_divergent-cpu-cold-rank1.json"])  # its metadata says the world has 2 ranks
    assert run.ranks[0].trace is None and run.ranks[0].label == "rank 0 — no trace"
    text = render(report(run), Style(False))
    assert "rank 0: no trace" in text and "fewer than two ranks left a trace" in text


def test_report_renders_a_merged_file_as_the_ranks_page(divergent, tmp_path):
    out, _ = divergent
    result = run_python(["-m", "tracers", "report", str(out / "rank_divergent-cpu-cold-ranks.json"),
                         "--out", str(tmp_path), "--site", "https://example.org/walkthrough"])
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "rank_divergent-cpu-cold-ranks.html").read_text()
    assert "Ranks diverge" in page and "rank 1 compiled 0/1 (1 compile), which rank 0 did not" in page
    # As the single-rank page: steps link to their chapters on the given site and to torch's source lines.
    assert 'href="https://example.org/walkthrough/chapters/02-frame-evaluation.html"' in page
    assert "github.com/pytorch/pytorch/blob/" in page


def test_the_ranks_page_escapes_what_the_traces_hold(divergent):
    from tracers.ranks.page import render_ranks

    out, _ = divergent
    run = load_run([out / "rank_divergent-cpu-cold-rank0.json", out / "rank_divergent-cpu-cold-rank1.json"])
    hostile = "<script>alert(1)</script>"
    traces = dict(run.present)
    traces[1].artifacts[:] = [dataclasses.replace(a, metadata={**a.metadata, "reasons": [hostile]})
                              if a.kind == "recompile" else a for a in traces[1].artifacts]
    html = render_ranks(report(run))
    assert hostile not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_chapter_shows_each_run_with_a_tab_per_device(tmp_path_factory):
    from tests.sitebuild import build_site

    build = build_site(tmp_path_factory.mktemp("site"))  # the session's one build, shared with test_site
    assert build.returncode == 0, build.stderr
    page = build.page("chapters/19-distributed")
    stems = ("ddp", "ddp_python_reducer", "fsdp2", "rank_divergent")
    cuda = [stem for stem in stems if list((EXAMPLES.parent / "_traces" / "cuda").glob(f"*/{stem}-cuda-cold-ranks.json"))]
    assert page.count('class="wt-trace wt-ranks"') == len(stems) + len(cuda)
    assert page.count("Ranks diverge") >= 1 and page.count("No divergence") >= 3
    assert page.count("Not recorded yet") == len(stems) - len(cuda)  # a device without a recording says so
    line = next(n for n, text in enumerate((DISTRIBUTED / "rank_divergent.py").read_text().splitlines(), 1)
                if "loss = step(" in text)
    assert "rank 1 compiled 0/1" in page and f"rank_divergent.py:{line}" in page
