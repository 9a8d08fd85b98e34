"""Calls that ran eager once a frame hit the recompile limit: counted exactly, on every Python, changing nothing."""

from __future__ import annotations

import re
import sys
import textwrap

import pytest

from tests.conftest import run_python, run_trace

pytestmark = pytest.mark.torch

# An int argument that changes every call, compiled without dynamic shapes: a version per value until the limit
# (2), then eager calls; the repeats of the first two values are served by their versions. A function and a module,
# since torch.compile wraps a module's ``__call__`` while Dynamo is offered its ``forward``.
PROGRAM = textwrap.dedent('''
    import torch

    torch._dynamo.config.recompile_limit = 2
    # Counted in tensors, which Dynamo guards by shape, not value: an int counter would fail a guard every call.
    body_runs = {"scale": torch.zeros(()), "shift": torch.zeros(())}


    def scale(x, n):
        body_runs["scale"].add_(1)
        return x * n + 1


    class Shift(torch.nn.Module):
        def forward(self, x, n):
            body_runs["shift"].add_(1)
            return x - n


    compiled = torch.compile(scale, backend="aot_eager", dynamic=False)
    module = torch.compile(Shift(), backend="aot_eager", dynamic=False)
    x = torch.ones(3)
    values = [2, 3, *range(4, 4 + EAGER), 2, 3, 2]
    total = 0.0
    for n in values:
        total += compiled(x, n).sum().item() + module(x, n).sum().item()
    print(f"total {total}  body runs {int(body_runs['scale'])} {int(body_runs['shift'])}")
''')
EAGER = 9  # values past the limit, each called once


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - the program run plain, then traced
    out = tmp_path_factory.mktemp("eager-calls")
    script = out / "limit_calls.py"
    script.write_text(PROGRAM.replace("EAGER", str(EAGER)), encoding="utf-8")
    return run_python([str(script)]), run_trace(script, out, "--no-page", "--quiet")


def test_eager_calls_after_the_limit_are_counted_exactly(runs):
    _, traced = runs
    assert traced.returncode == 0, traced.stderr
    info = traced.trace().info
    # 2 three times and 3 twice, by the versions compiled for them; every other value ran eager.
    assert info.calls_served == {"0/0": 3, "0/1": 2, "1/0": 3, "1/1": 2}
    assert info.calls_eager == {"0/2": EAGER, "1/2": EAGER}  # keyed by the compile the limit refused
    assert info.calls_note is None  # counted on this Python, 3.11 included


def test_tracing_changes_neither_outputs_nor_how_often_the_code_ran(runs):
    plain, traced = runs
    assert plain.returncode == 0, plain.stderr
    line = re.search(r"^total .*$", plain.stdout, re.M)
    assert line and line.group(0) in traced.stdout.splitlines()
    calls = 3 + 2 + EAGER  # every call ran the body once, served or eager
    assert line.group(0).endswith(f"body runs {calls} {calls}")


def test_the_counter_is_put_in_only_at_the_limit_and_taken_out_exactly():
    """Python 3.11: nothing wraps what torch.compile returned until its frame gives up; after the block, the
    wrapper's cell holds the user's function again (the very object)."""
    import torch

    import tracers

    def double(x, n):
        return x * n

    with tracers.trace() as t:
        compiled = torch.compile(double, backend="aot_eager", dynamic=False, recompile_limit=2)
        cell = compiled.__closure__[compiled.__code__.co_freevars.index("fn")]
        compiled(torch.ones(2), 2)
        compiled(torch.ones(2), 3)
        assert cell.cell_contents is double  # no limit hit: no call costs anything
        for n in (4, 5, 2, 6):
            compiled(torch.ones(2), n)
        if sys.version_info < (3, 12):
            assert cell.cell_contents is not double and cell.cell_contents.__wrapped__ is double
    assert cell.cell_contents is double
    [limit] = [compile_id for compile_id in t.trace.info.calls_eager]
    assert limit.endswith("/2") and t.trace.info.calls_eager[limit] == 3  # 4, 5 and 6
    assert torch.equal(compiled(torch.ones(2), 7), torch.full((2,), 7.0))  # still works, now untraced
