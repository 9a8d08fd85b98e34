"""Layers compiled one by one at one line are timed as one object, their calls added up per step."""

from __future__ import annotations

import pytest

from tracers.analysis.speed_layers import layered
from tracers.tracefile.speed import NO_BACKWARD, TimedFunction

pytestmark = pytest.mark.pure


def _layer(order: int, times: tuple[int, ...], backward: tuple[int, ...], compiling=(0,)) -> TimedFunction:
    return TimedFunction("model.py:30", order, "Block", times, compiling=compiling, compile_ids=(f"0/{order}",),
                         backward_host_ns=backward, step_host_ns=tuple(10 * t for t in times[:-1]))


def test_layers_compiled_at_one_line_are_one_object_summed_per_step() -> None:
    layers = [_layer(0, (5, 1, 1), (7, 2, 2)), _layer(1, (6, 2, 2), (8, 3, NO_BACKWARD), compiling=(0, 1))]
    [(combined, members)] = layered(layers)
    assert members == tuple(layers)
    assert combined.name == "Block ×2" and combined.key == ("model.py:30", 0)
    assert combined.host_ns == (11, 3, 3)
    assert combined.backward_host_ns == (15, 5, NO_BACKWARD)  # a layer without a backward: the step's is unknown
    assert combined.compiling == (0, 1) and combined.compile_ids == ("0/0", "0/1")
    assert combined.step_host_ns == layers[0].step_host_ns  # the first layer's call starts each step of the model


def test_objects_of_other_lines_or_call_counts_stand_alone() -> None:
    other_line = TimedFunction("model.py:31", 0, "Block", (1, 1))
    fewer_calls = _layer(1, (6, 2), (8, 3))
    found = layered([_layer(0, (5, 1, 1), (7, 2, 2)), fewer_calls, other_line])
    assert [(combined.name, members) for combined, members in found] == [("Block", ()), ("Block", ()), ("Block", ())]


@pytest.mark.torch
def test_a_model_compiled_per_layer_gets_one_speed_row_with_its_layers_folded(tmp_path) -> None:
    """The corpus's regional_blocks (six blocks compiled one by one at one line), 10 steps under --vs-eager."""
    from pathlib import Path

    from tests.conftest import run_trace

    program = Path(__file__).resolve().parents[2] / "corpus" / "programs" / "regional_blocks.py"
    run = run_trace(program, tmp_path, "--vs-eager", script_args=("10",))
    assert run.returncode == 0, run.stderr[-3000:]
    table = run.stderr[run.stderr.index("Speed by your code"):].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if "regional_blocks.py" in line]
    assert len(rows) == 1 and "Block ×6" in rows[0], table
    page = next(tmp_path.glob("*.html")).read_text(encoding="utf-8")
    assert "each of the 6 layers compiled at" in page and page.count("data-layer=") == 6
