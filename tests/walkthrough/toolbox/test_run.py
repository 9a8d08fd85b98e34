"""The toolbox recorder for real: TORCH_LOGS and a plain run of a tiny aot_eager program, the CLI's one-line errors."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_python
from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.toolbox.recording import load
from walkthrough.toolbox.runner import Setting, display, run_tool
from walkthrough.toolbox.tools import EXAMPLE, PYTHON, Requirement, Step, Tool
import pytest

pytestmark = pytest.mark.torch

TINY = '''\
import torch


def double_then_add(x):
    y = x * 2
    print("side effect")  # a graph break at line 6
    return y + 1


compiled = torch.compile(double_then_add, backend="aot_eager")
compiled(torch.ones(3))
compiled(torch.ones(5))  # another size: a recompile
'''


def test_record_torch_logs_on_a_tiny_program(tmp_path):
    """One real recording: the plain run, then TORCH_LOGS; what the recording says comes from their output."""
    script = tmp_path / "tiny.py"
    script.write_text(TINY)
    out = tmp_path / "toolbox"
    result = run_python(["-m", "walkthrough.toolbox", "record", "--example", str(script), "--tools", "torch_logs",
                         "--out", str(out)], timeout=300)
    assert result.returncode == 0, result.stderr
    assert "[1/3] plain run … ok" in result.stderr and "[2/3] TORCH_LOGS … ok" in result.stderr
    assert "[3/3] plain run, again … ok" in result.stderr
    [path] = (out / REFERENCE_TORCH).glob("tiny-cpu.json")
    recording = load(path)
    plain, logs = recording.tools
    assert (plain.id, logs.id) == ("plain", "torch_logs")
    assert plain.evidence == ()  # a print break gives no warning by itself
    assert logs.shows("break_reason").detail == "line 6"
    assert "Graph break in user code at" in logs.shows("break_reason").excerpt
    # Both frames recompile for the new size: the function, and the resume function after the break.
    assert logs.shows("recompile_reason").detail == "2 distinct"
    assert {"guards", "dynamo_graph", "aot_graph"} <= {evidence.feature for evidence in logs.evidence}
    assert "kernel_code" not in {evidence.feature for evidence in logs.evidence}  # aot_eager generates none
    assert logs.steps[0].command.startswith("TORCH_LOGS=graph_breaks,recompiles,guards,graph_code,aot_graphs,")
    assert logs.steps[0].exit_code == 0 and logs.stream_bytes > plain.stream_bytes
    assert recording.plain_again is not None and recording.plain_again.command == plain.steps[0].command
    assert str(tmp_path) not in path.read_text()  # the example's directory is scrubbed like any temp path


def test_a_step_that_runs_too_long_is_stopped_and_says_so(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    tool = Tool("slow", "slow", "baseline", "python EXAMPLE", (Step("run", (PYTHON, EXAMPLE)),))
    run = run_tool(tool, Setting(str(script), timeout_s=2), tmp_path / "runs")
    [step] = run.steps
    assert step.exit_code is None and run.error == "timed out after 2 s" and step.stdout == "started\n"
    assert step.wall_s < 30


def test_a_failing_step_stops_the_tool_with_its_last_line(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("raise SystemExit('no GPU here')\n")
    tool = Tool("fails", "fails", "CLI", "python EXAMPLE",
                (Step("run", (PYTHON, EXAMPLE)), Step("after", (PYTHON, "-c", "print(1)"), runs_example=False)))
    run = run_tool(tool, Setting(str(script)), tmp_path / "runs")
    assert len(run.steps) == 1 and run.error == "exit 1: no GPU here"


def test_missing_tools_are_named_in_one_line_with_how_to_get_them():
    tool = Tool("x", "x", "CLI", "x", (), (Requirement("executable", "no-such-tool-here", "pip install it"),
                                          Requirement("module", "no_such_module_here", "pip install that")))
    assert tool.missing() == "no-such-tool-here not installed: pip install it"
    assert Tool("y", "y", "API", "y", (), (Requirement("module", "json", "-"),)).missing() is None


def test_commands_are_shown_as_a_user_types_them():
    step = Step("run", (PYTHON, "-m", "tracers", "trace", "--out", "<out>", EXAMPLE, "<args>"),
                (("TORCH_TRACE", "<out>/trace"),))
    shown = display(step, Setting("docs/examples/graph_breaks.py", ("aot_eager", "a b")))
    assert shown == ("TORCH_TRACE=$OUT/trace python -m tracers trace --out $OUT docs/examples/graph_breaks.py "
                     "aot_eager 'a b'")


def test_cli_bad_input_gets_one_line_and_exit_2(tmp_path):
    cases = [
        (["--example", str(tmp_path / "missing.py")], "no such file"),
        (["--tools", "torch_logs,nope"], "unknown tool 'nope'"),
        (["--tools", "plain"], "unknown tool 'plain'"),
        (["--timeout", "0"], "--timeout: must be more than 0"),
    ]
    for options, message in cases:
        result = run_python(["-m", "walkthrough.toolbox", "record", *options, "--out", str(tmp_path)])
        assert result.returncode == 2, (options, result.stderr)
        assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr
    listing = run_python(["-m", "walkthrough.toolbox", "tools"])
    assert listing.returncode == 0 and "torch_compile_debug" in listing.stdout and "TORCH_LOGS=" in listing.stdout
    assert not any(Path(tmp_path).glob("*/*.json"))  # nothing was recorded
