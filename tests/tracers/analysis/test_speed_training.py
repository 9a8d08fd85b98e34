"""``--vs-eager`` on a compiled module trained a few steps (``model = torch.compile(model)``, then the loss,
``loss.backward()`` and ``optimizer.step()`` outside the call): the backward and the step, eager beside compiled, in
the JSON, the terminal, the page and the trace diff, each figure with its rounds' spread and the verdict only where
the spread allows it. No timing is asserted: presence, structure, and that every view says what was recorded."""

from __future__ import annotations

import re

import pytest

from tracers.analysis.findings import findings
from tracers.analysis.speed import speed_of
from tracers.analysis.speed_diff import speed_diff
from tracers.analysis.trace_facts import analyze
from tracers.report.page import render_page
from tracers.report.speed_diff import render_runtime_diff
from tracers.terminal.speed_diff import render_runtime_diff as terminal_diff
from tracers.terminal.style import Style
from tracers.terminal.summary import render
from tracers.tracefile.speed import NO_BACKWARD, SpeedRecord
from tracers.vocabulary.durations import duration

from tests.conftest import run_python, run_trace

pytestmark = pytest.mark.torch

STEPS = 24
TRAIN = f'''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = torch.nn.Linear(16, 32)
        self.out = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.out(self.hidden(x).tanh())


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
model = torch.compile(model, backend="aot_eager")
x, y = torch.randn(8, 16), torch.randn(8, 4)
for step in range({STEPS}):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
with torch.no_grad():
    model(x)  # one call without a backward
print(f"loss {{loss.item():.6f}}")
'''
CALLS = STEPS + 1


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The script plain, then traced twice with --vs-eager (A and B, for the diff)."""
    folder = tmp_path_factory.mktemp("trained")
    script = folder / "train_net.py"
    script.write_text(TRAIN)
    plain = run_python([str(script)], cwd=folder)
    runs = [run_trace(script, folder / side, "--vs-eager") for side in ("a", "b")]
    return plain, runs


def test_the_output_is_the_scripts(trained):
    plain, runs = trained
    assert plain.returncode == 0 and all(run.returncode == 0 for run in runs), runs[0].stderr
    assert all(run.stdout == plain.stdout for run in runs) and plain.stdout.startswith("loss ")


def test_the_json_holds_each_calls_backward_and_each_step_in_both_runs(trained):
    record = SpeedRecord.from_json(trained[1][0].trace().info.runtime)
    assert record is not None and record.eager is not None and record.eager.status == "ok"
    for run in (record.compiled, record.eager):
        [function] = run.functions
        assert function.name == "Net" and function.calls == CALLS
        # A backward for every training step, none for the call under no_grad (the last).
        assert len(function.backward_host_ns) == CALLS and function.backward_device_ns is None
        assert all(ns > 0 for ns in function.backward_host_ns[:STEPS])
        assert function.backward_host_ns[STEPS] == NO_BACKWARD
        # One step between each call's start and the next's.
        assert len(function.step_host_ns) == CALLS - 1 and all(ns > 0 for ns in function.step_host_ns)
        assert function.step_device_ns is None


def test_the_analysis_has_each_part_with_its_rounds_and_the_step_as_headline(trained):
    trace = trained[1][0].trace()
    [function] = speed_of(trace).functions
    assert function.headline is function.step and function.per == "step"
    for part in (function.step, function.forward, function.backward):
        assert part is not None and part.compiled_ns and part.eager_ns and part.compared is not None
        assert len(part.compared.eager.runs) == len(part.compared.compiled.runs) >= 2  # rounds: a spread measured
        assert part.compared.low <= part.speedup <= part.compared.high or len(part.compared.ratios) >= 2
        assert part.verdict in ("faster", "slower", "even")
        # A verdict only where every round agrees.
        assert (part.verdict == "faster") == (part.compared.low > 1)
        assert (part.verdict == "slower") == (part.compared.high < 1)
    assert function.backward.steady == function.steady_calls  # the no_grad call is not steady-state... nor timed
    assert function.speedup == function.step.speedup
    said = function.verdict_said
    if function.verdict == "even":
        assert said == f"no difference measurable here (spread {function.step.spread_text})"
    elif function.verdict == "faster" and function.payback_calls is not None:
        assert said.startswith(f"pays back after {function.payback_calls:,} steps")


def test_one_compile_figure_the_compile_tables_less_one_time_setup(trained):
    trace = trained[1][0].trace()
    [function] = speed_of(trace).functions
    table = sum(compile.time_ns for compile in analyze(trace).compiles if compile.compile_id in function.compile_ids)
    assert function.cost is not None and function.cost.source == "compile table"
    assert function.cost.forward_ns + function.cost.backward_ns == table
    assert function.compile_ns == table - function.cost.setup_ns
    for finding in findings(trace):
        if finding.kind == "never-pays-back":
            assert f"{duration(function.compile_ns)} ({function.cost.label})" in finding.what  # the same figure


def test_the_terminal_shows_the_step_forward_and_backward(trained):
    run = trained[1][0]
    trace = run.trace()
    [function] = speed_of(trace).functions
    summary = render(trace, run.facts(), Style(False))
    section = summary[summary.index("Speed by your code"):]
    section = section[:section.index("\n\n")]  # the table, up to the next section
    rows = {match[1]: match[0] for match in re.findall(r"^(.*\b(step|forward|backward)\b.*)$", section, re.M)
            if "compiled function" not in match[0]}
    assert set(rows) >= {"step", "forward", "backward"}, section
    for name in ("step", "forward", "backward"):
        part = getattr(function, name)
        assert duration(part.eager_ns) in rows[name] and duration(part.compiled_ns) in rows[name]
        assert part.spread_text in rows[name]
    assert function.verdict_said in rows["step"]  # the headline carries the verdict
    assert "Net (train_net.py:" in rows["step"]


def test_the_page_shows_each_part(trained):
    run = trained[1][0]
    trace = run.trace()
    [function] = speed_of(trace).functions
    page = render_page(trace, run.facts())
    for name in ("step", "forward", "backward"):
        row = re.search(rf'<tr[^>]*data-part="{name}".*?</tr>', page, re.S)
        assert row is not None, name
        part = getattr(function, name)
        assert duration(part.compiled_ns) in row.group(0) and part.spread_text in row.group(0)
    assert function.cost.label.replace("'", "&#x27;") in page or function.cost.label in page


def test_the_diff_compares_each_part(trained):
    a, b = (run.trace() for run in trained[1])
    result = speed_diff(a, b)
    [row] = result.functions
    assert [pair.part for pair in row.parts] == ["step", "forward", "backward"]
    for pair in row.parts:
        assert pair.compiled_ratio == pair.b.compiled_ns / pair.a.compiled_ns
        assert pair.within_spread in (True, False)  # both sides have rounds: a spread to compare against
    lines = "\n".join(terminal_diff(result, Style(False), ("A", "B")))
    for pair in row.parts:
        line = next(text for text in lines.splitlines() if text.strip().startswith(pair.part))
        assert f"compiled B/A {pair.compiled_ratio:.2f}×" in line
        assert ("within the rounds' spread" if pair.within_spread else "beyond the rounds' spread") in line
    html = render_runtime_diff(result, ("A", "B"))
    assert all(f'data-part="{pair.part}"' in html for pair in row.parts)
    cli = run_python(["-m", "tracers", "diff", str(trained[1][0].trace_path), str(trained[1][1].trace_path)])
    assert cli.returncode == 0 and "backward" in cli.stdout + cli.stderr


PROFILED = '''
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(32, 32) * 0.1)

    def forward(self, x):
        y = x @ self.weight
        return (y.sin() * 2 + 1).relu()  # one fused kernel


torch.manual_seed(0)
model = torch.compile(Block())
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(16, 32)
for step in range(20):
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
'''


@pytest.fixture(scope="module")
def profiled_training(tmp_path_factory):
    """An Inductor compile (forward and its lazily compiled backward) profiled over steady training steps."""
    folder = tmp_path_factory.mktemp("profiled-training")
    script = folder / "block_train.py"
    script.write_text(PROFILED)
    run = run_trace(script, folder / "out", "--profile", "--no-page")
    assert run.returncode == 0, run.stderr
    return run, script


def test_profile_puts_the_backwards_kernels_at_the_forward_line_apart(profiled_training):
    run, script = profiled_training
    trace = run.trace()
    record = SpeedRecord.from_json(trace.info.runtime)
    [profiled] = record.profiles
    phases = {kernel.phase for kernel in profiled.kernels if kernel.side == "op"}
    assert phases == {"forward", "backward"}  # the window holds whole steps: the backward's kernels are in it
    assert profiled.backward_calls == profiled.calls  # every profiled call's backward ran inside the window
    [profile] = speed_of(trace).profiles
    fused_line = PROFILED.splitlines().index("        return (y.sin() * 2 + 1).relu()  # one fused kernel") + 1
    by_line = {line.line.line: line for line in profile.lines if line.line is not None}
    assert fused_line in by_line, profile
    fused = by_line[fused_line]
    assert fused.forward_ns > 0 and fused.backward_ns > 0  # the backward's kernels at the forward line they came from
    assert fused.ns_per_call == pytest.approx(fused.forward_ns + fused.backward_ns)
    # The totals reconcile, forward and backward apart, each against the time measured around it, or say why.
    said = profile.reconciled
    assert said[0].startswith(f"forward: {duration(profile.forward_kernel_ns)} of kernels per call, "
                              f"{duration(profile.call_ns)} a profiled call")
    assert said[1].startswith(f"backward: {duration(profile.backward_kernel_ns)} of kernels per call, "
                              f"{duration(profile.backward_ns)} a profiled backward")
    for text, kernels, bound in ((said[0], profile.forward_kernel_ns, profile.call_ns),
                                 (said[1], profile.backward_kernel_ns, profile.backward_ns)):
        assert ("(more: " in text) == (kernels > bound * 1.01)
    summary = render(trace, run.facts(), Style(False))
    assert "forward   backward" in summary and said[0] in summary
    page = render_page(trace, run.facts())
    assert "<th>forward</th>" in page and said[1] in page
