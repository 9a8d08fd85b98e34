"""``trace --vs-eager`` in two processes: the eager run starts only once the traced process has gone; the trace, the
summary and the exit status are the traced run's, and signals reach it as they would reach the script alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tracers.commands.parsing import option_strings
from tracers.commands.trace import _trace_parser
from tracers.tracefile.chrome import load
from tracers.tracefile.speed import SpeedRecord

from tests.conftest import ROOT, SCRIPTS, run_python, run_trace

pytestmark = pytest.mark.torch

SCRIPT = SCRIPTS / "eager_after.py"


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    folder = tmp_path_factory.mktemp("eager-after")
    marks = folder / "marks.txt"
    return run_trace(SCRIPT, folder, "--vs-eager", script_args=(str(marks),)), marks


def test_the_eager_run_starts_once_the_traced_process_has_gone(traced):
    run, marks = traced
    _, _, state = marks.read_text().split()
    assert state == "gone", run.stderr
    assert run.returncode == 0 and run.stdout == "done\n"  # the traced run's output alone, as the script's
    record = SpeedRecord.from_json(run.trace().info.runtime)
    assert record is not None and record.eager is not None and record.eager.status == "ok"
    assert [function.calls for function in record.eager.functions] == [20]


def test_the_trace_keeps_the_traced_process_and_the_summary_says_both_runs(traced):
    run, marks = traced
    traced_pid = int(marks.read_text().split()[0])
    events = json.loads(run.trace_path.read_text(encoding="utf-8"))["traceEvents"]
    assert {event["pid"] for event in events} == {traced_pid}  # written again by the tracer, still the traced run's
    stderr = run.stderr
    assert stderr.count("running the script again with compile off") == 1
    assert stderr.index("running the script again") < stderr.index("torch.compile trace")
    assert "Speed by your code" in stderr and "Traceback" not in stderr
    assert " only in the " not in stderr  # the compiled run's object met its eager twin (both paths as saved)
    assert f"Written {run.trace_path}" in stderr and f"Written {run.trace_path.with_suffix('.html')}" in stderr
    assert run.trace_path.with_suffix(".html").stat().st_size > 0


def test_a_signal_inside_the_traced_run_ends_both_processes_by_it(tmp_path):
    run = run_trace(SCRIPTS / "interrupted.py", tmp_path, "--vs-eager", script_args=("SIGTERM",))
    assert run.returncode == -signal.SIGTERM and run.stdout == "before compile\n"
    assert run.stderr.count(f"the partial trace was written to {run.trace_path}") == 1
    assert "compile off" not in run.stderr and "Traceback" not in run.stderr
    assert run.trace().info.status == "terminated"


@pytest.mark.parametrize("to_group", [False, True], ids=["the-tracer", "its-process-group"])
def test_sigterm_reaches_the_traced_run_once(tmp_path, to_group):
    """To the tracer alone, as a scheduler sends it: passed on. To the whole group, as ``timeout`` sends it: the
    traced run gets it twice (the group's and the one passed on), and the second must not cut its trace short."""
    marks = tmp_path / "marks.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    tracer = subprocess.Popen([sys.executable, "-m", "tracers", "trace", "--vs-eager", "--out", str(tmp_path),
                               str(SCRIPT), str(marks), "wait"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert tracer.stdout.readline() == "ready\n"  # the traced run is in the script's sleep
        if to_group:
            os.killpg(tracer.pid, signal.SIGTERM)
        else:
            tracer.send_signal(signal.SIGTERM)
        stdout, stderr = tracer.communicate(timeout=120)
    finally:
        tracer.kill()
    assert tracer.returncode == -signal.SIGTERM and stdout == ""
    assert stderr.count("the partial trace was written to") == 1, stderr
    assert "compile off" not in stderr and "Traceback" not in stderr
    assert len(marks.read_text().split()) == 1  # no eager run
    assert load(next(tmp_path.glob("eager_after-*.json"))).info.status == "terminated"


def test_a_traced_run_killed_outright_is_said_in_one_line(tmp_path):
    run = run_trace(SCRIPT, tmp_path, "--vs-eager", script_args=(str(tmp_path / "marks.txt"), "SIGKILL"))
    plain = run_python([str(SCRIPT), str(tmp_path / "plain.txt"), "SIGKILL"])
    assert run.returncode == plain.returncode == -signal.SIGKILL
    assert run.stderr.strip().splitlines()[-1] == ("trace: the traced run was killed by SIGKILL (out of memory?): no "
                                                   "trace was written")
    assert "Traceback" not in run.stderr


def test_a_traced_run_killed_after_saving_its_trace_still_gets_its_eager_run_and_summary(tmp_path):
    marks = tmp_path / "marks.txt"
    run = run_trace(SCRIPT, tmp_path, "--vs-eager", script_args=(str(marks), "SIGKILL-at-exit"))
    assert run.returncode == -signal.SIGKILL and run.stdout == "done\n"  # as the script alone ends
    assert marks.read_text().split()[2] == "gone" and "Speed by your code" in run.stderr
    record = SpeedRecord.from_json(run.trace().info.runtime)
    assert record is not None and record.eager is not None and record.eager.status == "ok"


def test_a_traced_run_stopped_after_saving_its_trace_says_where_it_is_and_runs_nothing_more(tmp_path):
    marks = tmp_path / "marks.txt"
    run = run_trace(SCRIPT, tmp_path, "--vs-eager", script_args=(str(marks), "SIGTERM-at-exit"))
    plain = run_python([str(SCRIPT), str(tmp_path / "plain.txt"), "SIGTERM-at-exit"])
    assert run.returncode == plain.returncode == -signal.SIGTERM and run.stdout == plain.stdout == "done\n"
    assert run.stderr.strip().splitlines()[-1] == (f"trace: stopped by SIGTERM before the eager run: the trace is "
                                                   f"{run.trace_path}, without its page")
    assert len(marks.read_text().split()) == 1 and run.trace().info.status == "ok"  # no eager run; the trace whole


def test_the_hand_off_option_is_hidden_and_never_suggested():
    parser, trace = _trace_parser()
    assert "--hand-off" not in option_strings(parser)
    assert "--hand-off" not in trace.format_help()


@pytest.mark.parametrize("options,env", [(("--nproc", "2"), {}), ((), {"RANK": "1", "WORLD_SIZE": "2"})],
                         ids=["--nproc", "under-a-launcher"])
def test_vs_eager_beside_several_ranks_is_refused_in_one_line(tmp_path, options, env):
    marks = tmp_path / "marks.txt"
    run = run_trace(SCRIPT, tmp_path / "out", "--vs-eager", *options, script_args=(str(marks),), env=env)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == ("trace: --vs-eager runs the script again as one process with compile off, which a "
                                  "run of several ranks cannot be: trace the ranks without it, or time the loop on "
                                  "one process")
    assert not marks.exists() and not (tmp_path / "out").exists()  # nothing run, nothing written
