"""A script that ends with os._exit(n) still leaves its trace, and the process still exits n."""

from __future__ import annotations

from tests.conftest import SCRIPTS, run_python, run_trace
import pytest

pytestmark = pytest.mark.torch


def test_os_exit_leaves_the_trace_and_keeps_the_exit_status(tmp_path) -> None:
    run = run_trace(SCRIPTS / "hard_exit.py", tmp_path, script_args=("7",))
    plain = run_python([str(SCRIPTS / "hard_exit.py"), "7"])
    assert run.returncode == plain.returncode == 7
    assert run.stdout == plain.stdout == "compiled\n"  # nothing after os._exit ran, traced or not
    info = run.trace().info
    assert (info.status, info.exit_code) == ("exit", 7)
    assert "the script ended with os._exit(7): no cleanup of its own ran" in info.warnings
    assert run.facts().totals().frame_compiles == 1
    assert (tmp_path / "hard_exit-cpu-cold.html").exists()
    assert "Graphs 1   Graph breaks 0" in run.stderr  # the summary, as at any other ending


def test_a_forked_child_ending_with_os_exit_is_not_the_run(tmp_path) -> None:
    """multiprocessing's fork workers leave through os._exit: only the traced process writes the trace."""
    run = run_trace(SCRIPTS / "forks.py", tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "worker said 2.0\nworker exit 0\n"
    assert run.stderr.count("Graphs 1   Graph breaks 0") == 1  # one summary: the parent's
    info = run.trace().info
    assert info.status == "ok" and not any("os._exit" in warning for warning in info.warnings)
