"""Every process of a traced run is traced (spawn ranks, pool and forkserver workers, subprocesses), merged
with the main one, and counted as torch counts in each; concurrent runs of one script never share a file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tracers.ranks.merge import load_merged
from tracers.tracefile.chrome import load

from tests.conftest import ROOT, SCRIPTS, run_python, run_trace
import pytest

pytestmark = pytest.mark.torch


def _torch_counts(path: Path) -> dict:
    """What torch itself counted in that process (its Dynamo counters, read by the child at its end)."""
    check = load(path).info.totals_check
    assert check and not check["mismatches"] and not check["skipped"], check
    assert check["tracer"] == check["torch"]
    return check["torch"]


def _merged_rows(path: Path) -> dict[str, dict]:
    meta = json.loads(path.read_text())["otherData"]["torch_compile_walkthrough_ranks"]
    return {row["name"]: row for row in meta["diagnostics"]["ranks"]}


def test_spawn_ddp_ranks_are_traced_and_merged(tmp_path) -> None:
    run = run_trace(SCRIPTS / "spawn_ddp.py", tmp_path, "--no-page")
    assert run.returncode == 0, run.stderr
    assert "Nothing was compiled: the script never reached" not in run.stderr  # both ranks compiled
    assert "Nothing was compiled in this process; 2 of its child processes compiled" in run.stderr
    ranks = [tmp_path / f"spawn_ddp-cpu-cold-rank{rank}.json" for rank in (0, 1)]
    counts = [_torch_counts(path) for path in ranks]
    assert all(count["frame_compiles"] >= 1 for count in counts)
    for rank, path in enumerate(ranks):
        info = load(path).info
        assert (info.rank["rank"], info.rank["world_size"], info.rank["backend"]) == (rank, 2, "gloo")
        assert info.process["spawn_index"] == rank and info.cache_mode == "cold"
    merged = tmp_path / "spawn_ddp-cpu-cold-processes.json"
    run_back = load_merged(merged)
    assert [slot.name for slot in run_back.ranks] == ["rank 0", "rank 1", "main process"]
    rows = _merged_rows(merged)
    for rank, count in enumerate(counts):
        row = rows[f"rank {rank}"]
        assert (row["compiles"], row["graphs"], row["graph_breaks"]) == \
            (count["frame_compiles"], count["graphs"], count["graph_breaks"])
    assert rows["main process"]["compiles"] == 0
    assert "No divergence: ranks 0, 1" in run.stderr
    assert not (tmp_path / ".tracers-children").exists()


def test_spawn_pool_and_forkserver_workers_that_compile(tmp_path) -> None:
    run = run_trace(SCRIPTS / "spawn_pool.py", tmp_path, "--no-page", "--cache", "warm",
                    script_args=("--forkserver",))
    plain = run_python([str(SCRIPTS / "spawn_pool.py"), "--forkserver"])
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout, run.stderr  # the tracer changes nothing the program computes
    children = sorted(tmp_path.glob("spawn_pool-cpu-warm-pid*.json"))
    assert len(children) >= 2, run.stderr  # the pool's workers that got work, and the forkserver's child
    counts = {path.stem.rsplit("-pid", 1)[1]: _torch_counts(path) for path in children}
    assert sum(count["frame_compiles"] for count in counts.values()) >= 2
    for path in children:
        assert load(path).info.cache_mode == "warm"  # the run's options reach its children
    rows = _merged_rows(tmp_path / "spawn_pool-cpu-warm-processes.json")
    for pid, count in counts.items():
        assert rows[f"process {pid}"]["compiles"] == count["frame_compiles"]
        assert rows[f"process {pid}"]["graphs"] == count["graphs"]
    # Every worker's trace says how it ended. The worker kept busy by its last task can only have been ended by
    # the pool's terminate() (SIGTERM); an idle worker either took the pool's stop sentinel or was terminated too.
    endings = sorted(row["ended"] for row in rows.values())
    assert sum(ending.startswith("killed (SIGTERM)") for ending in endings) >= 1, endings
    assert all(ending.startswith(("ok", "killed (SIGTERM)")) for ending in endings), endings
    assert len(children) == len(rows) - 1  # every worker that started left its trace; the main process is the rest


def test_a_subprocess_child_running_python_is_traced_with_the_runs_options(tmp_path) -> None:
    run = run_trace(SCRIPTS / "subprocess_child.py", tmp_path, "--no-page", "--lines")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "child 2.0 exit 0\n"
    parent = _torch_counts(tmp_path / "subprocess_child-cpu-cold.json")
    (child,) = tmp_path.glob("subprocess_child-cpu-cold-pid*.json")
    counts = _torch_counts(child)
    info = load(child).info
    assert info.lines_recorded and info.command[1] == "-c"
    assert (parent["frame_compiles"], counts["frame_compiles"]) == (1, 1)
    rows = _merged_rows(tmp_path / "subprocess_child-cpu-cold-processes.json")
    assert rows["main process"]["compiles"] == parent["frame_compiles"]
    assert sum(row["compiles"] for row in rows.values()) == parent["frame_compiles"] + counts["frame_compiles"]


def test_a_killed_child_leaves_the_others_traces_and_is_listed(tmp_path) -> None:
    run = run_trace(SCRIPTS / "child_killed.py", tmp_path, "--no-page")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "exit codes [0, -9]\n"
    (survivor,) = tmp_path.glob("child_killed-cpu-cold-pid*.json")
    assert _torch_counts(survivor)["frame_compiles"] == 1
    merged = load_merged(tmp_path / "child_killed-cpu-cold-processes.json")
    dead = [slot for slot in merged.ranks if slot.trace is None]
    assert len(dead) == 1 and "killed before it could write one" in dead[0].ending
    assert "no trace" in run.stderr


def test_two_concurrent_runs_of_one_script_keep_both_traces(tmp_path) -> None:
    meeting = tmp_path / "meeting"  # each run waits there for the other: they overlap whatever the scheduling

    def start(factor: str) -> subprocess.Popen:
        command = [sys.executable, "-m", "tracers", "trace", "--no-page", "--out", str(tmp_path),
                   str(SCRIPTS / "slow_compile.py"), factor, str(meeting), "2"]
        return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**__import__("os").environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})

    first, second = start("2"), start("3")
    results = [process.communicate(timeout=600) for process in (first, second)]
    assert first.returncode == second.returncode == 0, results
    files = sorted(path.name for path in tmp_path.glob("slow_compile*.json"))
    assert files == ["slow_compile-cpu-cold.json", "slow_compile.2-cpu-cold.json"]
    factors = set()
    for name in files:
        trace = load(tmp_path / name)
        assert _torch_counts(tmp_path / name)["frame_compiles"] == 1
        factors.add(trace.info.command[-3])
    assert factors == {"2", "3"}  # one trace per run: neither replaced the other
    said = "".join(stderr for _, stderr in results)
    assert "belongs to another run that is still running or was written after this one started" in said
    # A plain re-run, with no other run about, takes the script's own name again and replaces that trace.
    again = run_trace(SCRIPTS / "slow_compile.py", tmp_path, "--no-page", script_args=("4",))
    assert again.returncode == 0 and again.trace().info.command[-1] == "4"
    assert not list(tmp_path.glob(".*.claim"))


def test_a_killed_rank_is_listed_once_as_that_rank(tmp_path) -> None:
    """Rank 1 leaves no trace (SIGKILL): the merged run lists rank 1 once, with the process that died."""
    run = run_trace(SCRIPTS / "rank_killed.py", tmp_path, "--no-page")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "exit codes [0, -9]\n"
    merged = load_merged(tmp_path / "rank_killed-cpu-cold-processes.json")
    assert [slot.name for slot in merged.ranks] == ["rank 0", "rank 1", "main process"]
    (rank1,) = [slot for slot in merged.ranks if slot.name == "rank 1"]
    assert rank1.trace is None and "killed before it could write one" in rank1.ending
    assert _torch_counts(tmp_path / "rank_killed-cpu-cold-rank0.json")["frame_compiles"] == 1


def test_a_subprocess_childs_sys_exit_status_is_in_its_trace(tmp_path) -> None:
    run = run_trace(SCRIPTS / "subprocess_exit.py", tmp_path, "--no-page")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "child exit 3\n"  # the child's status is its own, traced or not
    (child,) = tmp_path.glob("subprocess_exit-cpu-cold-pid*.json")
    info = load(child).info
    assert (info.status, info.exit_code) == ("exit", 3)


def test_a_sigterm_given_to_another_thread_still_ends_the_child_and_writes_its_trace(tmp_path) -> None:
    # The child's main thread is blocked on a lock; the kernel gave SIGTERM to another thread. Python runs the
    # tracer's handler only in the main thread: without the relay the child would live on, unlike a plain one.
    run = run_trace(SCRIPTS / "sigterm_other_thread.py", tmp_path, "--no-page")
    plain = run_python([str(SCRIPTS / "sigterm_other_thread.py")])
    assert plain.stdout == "exit code -15\n"
    assert run.stdout == plain.stdout, run.stderr
    (child,) = tmp_path.glob("sigterm_other_thread-cpu-cold-pid*.json")
    assert _torch_counts(child)["frame_compiles"] == 1
    rows = _merged_rows(tmp_path / "sigterm_other_thread-cpu-cold-processes.json")
    (ending,) = [row["ended"] for name, row in rows.items() if name != "main process"]
    assert ending.startswith("killed (SIGTERM)"), ending
