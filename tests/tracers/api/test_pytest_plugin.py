"""The pytest plugin, loaded through its entry point in a real pytest run of a small project (pytester)."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.torch

pytest_plugins = ["pytester"]

# A small project's tests: aot_eager, so no C++ compile; one test breaks its graph, one compiles cleanly,
# one compiles without the fixture and fails, one never compiles.
PROJECT_TESTS = '''
import torch


def scale(x):
    x = x * 2
    print("half way")  # a graph break
    return x.sin()


def test_break_budget(compile_trace):
    compiled = torch.compile(scale, backend="aot_eager")
    compiled(torch.ones(4))
    compiled(torch.ones(8))  # a new shape: the frame and its resume function recompile
    assert compile_trace.recompiles <= 2
    assert compile_trace.graph_breaks == 0


def test_clean_budget(compile_trace):
    compiled = torch.compile(lambda x: x.cos() + 1, backend="aot_eager")
    compiled(torch.ones(3))
    assert compile_trace.graph_breaks == 0 and compile_trace.recompiles <= 1
    assert compile_trace.compiles == 1 and compile_trace.graphs == 1


def test_compiles_without_the_fixture():
    torch.compile(lambda x: x * 3, backend="aot_eager")(torch.ones(2))
    raise RuntimeError("a failing test keeps its trace")


def test_compiles_nothing():
    assert torch.ones(2).sum() == 2
'''


@pytest.fixture
def run(pytester: pytest.Pytester):
    """One pytest run of the project in a fresh process, the plugin found through its entry point."""
    pytester.makepyfile(test_project=PROJECT_TESTS)
    out = pytester.path / "compile-traces"
    # -vv: pytest cuts a long assertion message at 8 lines otherwise (and says how to see it whole)
    result = pytester.runpytest_subprocess("--compile-trace", str(out), "-p", "no:cacheprovider", "-vv")
    return result, out


def test_budgets_fail_naming_each_break_and_traces_are_written_per_compiling_test(run) -> None:
    result, out = run
    result.assert_outcomes(passed=2, failed=2)
    text = result.stdout.str()
    # The failed budget names the break's user line (file, line number, source) and torch's reason,
    # for each of the two breaks (one per compile of the frame).
    assert "assert 2 == 0" in text
    assert "graph break 1: [0/0] test_project.py:6 `print(\"half way\")  # a graph break`: " in text
    assert "graph break 2: [0/1] test_project.py:6" in text
    assert "Failed to trace builtin operator" in text
    # Then the run's findings: the two breaks are one cause, at the user's line.
    assert "findings (worst first):" in text
    # Both causes, numbered; their order is by measured cost, which this machine's timing decides.
    numbered = re.findall(r"^E\s+(\d)\. (.*?) — ", text, re.MULTILINE)
    assert sorted(number for number, _ in numbered) == ["1", "2"]
    assert {claim for _, claim in numbered} == {
        "`scale` recompiled 2 times (in `scale` and in the rest of `scale` after line 6): "
        "the size of `x` changed, then Dynamo compiled it as dynamic at test_project.py:13",
        "2 graph breaks: Failed to trace builtin operator at test_project.py:6"}
    assert "3 test(s) compiled something" in text
    assert "torch.__trace" not in text  # torch's records never reach a failing test's captured log

    written = sorted(path.name for path in out.iterdir())
    assert written == sorted(f"test_project.py__{name}-cpu-warm.{suffix}"
                             for name in ("test_break_budget", "test_clean_budget",
                                          "test_compiles_without_the_fixture")
                             for suffix in ("json", "html"))
    trace = json.loads((out / "test_project.py__test_break_budget-cpu-warm.json").read_text())
    info = trace["otherData"]["torch_compile_walkthrough"]
    assert info["status"] == "ok"  # the assertion failed after the block; the trace itself is whole
    assert info["totals_check"]["tracer"] == {"graphs": 4, "graph_breaks": 2, "frame_compiles": 4, "recompiles": 2}
    assert info["totals_check"]["mismatches"] == []
    failed = json.loads((out / "test_project.py__test_compiles_without_the_fixture-cpu-warm.json").read_text())
    info = failed["otherData"]["torch_compile_walkthrough"]
    assert (info["status"], info["error"]) == ("error", "RuntimeError: a failing test keeps its trace")


def test_the_plugin_is_installed_with_the_package() -> None:
    from importlib.metadata import entry_points

    plugins = {entry.name: entry.value for entry in entry_points(group="pytest11")}
    assert plugins.get("tracers") == "tracers.api.pytest_plugin"


LATE_HOOK_TEST = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.proj(x))


def test_late_hook_runs():
    seen = []
    model = Net()
    compiled = torch.compile(model, backend="aot_eager")
    compiled(torch.randn(2, 8))
    model.proj.register_forward_hook(lambda module, args, out: seen.append(1))
    compiled(torch.randn(2, 8))
    assert seen == [1]
'''


def test_check_fixes_runs_a_failing_test_again_with_the_fix_and_says_it_passes(pytester):
    """--compile-trace-check-fixes (issue 53): the hook the compiled code ignored fails the test; with the hook
    guards on, run again in a fresh pytest process, it passes: said, and written into the test's trace."""
    pytester.makepyfile(test_hook=LATE_HOOK_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--compile-trace", "out",
                                           "--compile-trace-check-fixes")
    result.assert_outcomes(failed=1)
    # works, or helps where the fixed run compiled markedly longer (a timing a loaded machine can move)
    result.stdout.re_match_lines([r".*test_late_hook_runs: torch\._dynamo\.config\.skip_nnmodule_hook_guards = False: "
                                  r"(works|helps):.*the test passes with it; it failed without.*"])
    (saved,) = (pytester.path / "out").glob("*.json")
    (check,) = json.loads(saved.read_text())["otherData"]["torch_compile_walkthrough"]["fix_checks"]
    assert check["verdict"] in ("works", "helps") and check["exit_code"] == 0
