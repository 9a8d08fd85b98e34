"""Divergence in words: a 2-rank gloo run whose ranks feed one compiled step inputs of different shapes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SCRIPTS, run_python
import pytest

pytestmark = pytest.mark.torch

SAID = "`input_ids` is [4, 128] on rank 0 and [4, 96] on rank 1"


def test_the_first_divergence_names_the_input_and_both_shapes_in_one_line(tmp_path: Path) -> None:
    result = run_python(["-m", "tracers", "trace", "--nproc", "2", "--out", str(tmp_path),
                         str(SCRIPTS / "rank_shapes.py")])
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stderr.splitlines()
    head = next(index for index, line in enumerate(lines) if line.startswith("Ranks diverge"))
    assert "first at compile 0/0, input tensor metadata" in lines[head]
    assert lines[head + 1].strip() == SAID  # the first difference in one line, right under the header
    assert "rank_shapes.py:" in lines[head + 2] and "step(" in lines[head + 2]  # the user's line
    # no raw guard text or graph signature anywhere in the summary
    assert "check_tensor" not in result.stderr and "L_input_ids_" not in result.stderr
    page = next(tmp_path.glob("*-ranks.html")).read_text(encoding="utf-8")
    first = page[page.index('class="wt-rank-diverge"'):]
    assert f'<p class="wt-rank-first">{SAID}</p>' in first
    assert "check_tensor" not in first[:first.index("</div>")]


def test_the_same_logs_say_the_same_divergence_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Guards are compared as sets: the lines said about them come out in one order, not the hash seed's."""
    logs = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs" / "multi_rank_runtime"
    said = set()
    for seed in ("1", "2", "3"):
        result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / seed)],
                            env={"PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr[-3000:]
        said.add("\n".join(line for line in result.stderr.splitlines() + result.stdout.splitlines()
                           if str(tmp_path) not in line))
    assert len(said) == 1


def test_recompile_reasons_that_differ_are_said_in_words_per_rank() -> None:
    """Both ranks recompiled, for another size each: the headline says each rank's failure as the findings do, never
    torch's text (``tensor 'args[0]' size mismatch``)."""
    from tracers.ranks.divergence import _reason_words
    from tracers.tracefile.events import RunInfo, Trace

    info = RunInfo(1, "t", "2.13.0", "", "3.11", "linux", "cpu", "", "cold", [], "now", status="ok")
    traces = {0: Trace(info, [], []), 1: Trace(info, [], [])}
    grouped = [((0,), ("0/0: tensor 'args[0]' size mismatch at index 0. expected 4, actual 2",)),
               ((1,), ("0/0: tensor 'x' size mismatch at index 0. expected 4, actual 1",))]
    [line] = _reason_words("0/1", grouped, traces)
    assert line == ("recompiled because the size of the call's first argument changed (dimension 0: 4 before, now 2) "
                    "on rank 0 and the size of `x` changed (dimension 0: 4 before, now 1) on rank 1")


def test_a_guarded_value_is_said_by_the_grammar() -> None:
    from tracers.ranks.wording import said_source

    assert said_source("L['args'][0]") == "the call's first argument"
    assert said_source("L['kwargs']['input_ids']") == "`input_ids`"
    assert said_source("L['self']._modules['fc']._parameters['weight']") == "`self.fc.weight`"


def test_a_dynamic_dimension_and_a_dynamic_size_input_are_said_so() -> None:
    from tracers.ranks.wording import guard_words, input_words

    guard = "TENSOR_MATCH: check_tensor(L['args'][0], Tensor, DispatchKeySet(CPU), torch.float32, device=None, " \
            "requires_grad=False, size={}, stride=[16, 1])"
    [line] = guard_words({0: frozenset({guard.format("[None, 16]")}), 1: frozenset({guard.format("[1, 16]")})})
    assert line == "the call's first argument is [any, 16] on rank 0 and [1, 16] on rank 1"
    [said] = input_words({0: ("s33: SymInt",), 1: ()})
    assert said == "`s33`, a dynamic size, is an input on rank 0 only"


def test_the_recompile_reasons_of_a_merge_are_words_said_once_for_the_ranks_that_share_them(tmp_path: Path) -> None:
    logs = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs" / "multi_rank_runtime"
    result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr[-3000:]
    text = result.stderr + result.stdout
    section = text[text.index("Recompile reasons"):].split("\n\n", 1)[0].splitlines()[1:]
    assert section == ["  [0/1] a different object was passed as `fn` (Dynamo guards on its identity)  on every process"]
