"""A hang is said only where the ranks' collectives cannot meet; elsewhere they differ, from the first place they part
(a completed gloo run, its graphs altered to pair other operations, the recorded NCCL run and tlparse's schedules)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tracers.ranks.collectives import Step, parting
from tracers.ranks.divergence import compare
from tracers.ranks.page import render_ranks
from tracers.ranks.summary import render, report
from tracers.terminal.style import Style
from tracers.torchlogs.load import load_logs
from tracers.torchlogs.merged_run import merged_run

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"
GLOO = DATA / "torch_trace-2.13.0-gloo-collectives"
RECORDED = DATA / "torch_trace-2.11.0-collective-divergence"
SCHEDULE = DATA / "tlparse" / "inputs" / "multi_rank_schedule"
HANG = ("hang", "cannot pair", "never meet", "never issues")


def _said(path: Path):
    result = report(merged_run(load_logs(path), path.name))
    return result, render(result, Style(False)), render_ranks(result)


def _claims_hang(text: str) -> bool:
    return any(word in text for word in HANG)


def test_a_completed_gloo_run_whose_graphs_differ_claims_no_hang() -> None:
    """Rank 0 makes eagerly the all_reduce rank 1 compiled: the job ran in step, both ranks printed one result."""
    result, text, page = _said(GLOO)
    [collectives] = [d for d in result.divergence.differences if d.aspect == "collectives"]
    assert collectives.said == ("the compiled graphs issue all_reduce f32[16, 16] on rank 0 and all_reduce f32[16, 16], "
                                "all_reduce f32[16] on rank 1")
    # the first place they part, and what it means: rank 0's graph ends there, the log has no eager collective
    assert "collective 2 is none (its graph ends) on rank 0 and all_reduce f32[16] on rank 1" in collectives.detail
    assert collectives.why.startswith("graph 0/0 ends after 1 collective on rank 0 where on rank 1 it goes on with "
                                      "all_reduce f32[16]")
    assert "outside them (eagerly), the ranks stay in step" in collectives.why
    for difference in result.divergence.differences:
        assert not _claims_hang(difference.why + difference.words + " ".join(difference.detail))
    assert not _claims_hang(text) and not _claims_hang(page.lower().replace("hangs", ""))


def test_graphs_that_pair_other_operations_at_one_place_cannot_meet() -> None:
    """The same run with rank 1's all_reduce turned into an all_gather: inside one graph nothing runs between its
    collectives, so the first ones cannot pair; on CPU tensors (gloo) no hang is claimed (issue 54)."""
    loaded = load_logs(GLOO)
    traces = {log.rank: log.trace for log in loaded.logs}
    traces[1].artifacts[:] = [
        dataclasses.replace(a, payload=a.payload.replace("_c10d_functional.all_reduce",
                                                         "_c10d_functional.all_gather_into_tensor"))
        if a.payload and a.compile_id == "0/0" else a for a in traces[1].artifacts]
    [collectives] = [d for d in compare(traces).differences if d.aspect == "collectives"]
    assert "collective 1 is all_reduce f32[16, 16] on rank 0 and all_gather_into_tensor f32[16, 16] on rank 1" \
        in collectives.detail
    assert collectives.why.startswith("collective 1 of graph 0/0 differs in operation between the ranks")
    assert "cannot pair" in collectives.why and "gloo" in collectives.why and "hang" not in collectives.why


def test_the_recorded_nccl_runs_divergent_schedule_is_still_said_without_a_hang() -> None:
    result, text, page = _said(RECORDED)
    [schedule] = [d for d in result.divergence.differences if d.aspect == "collective schedule"]
    assert "collective 2 is none (the sequence ended) on rank 0 and all_reduce_ on rank 1" in schedule.said
    assert schedule.why.startswith("graph 0/0 ends after 1 collective on rank 0 where on rank 1 it goes on with "
                                   "all_reduce_")
    assert not any(_claims_hang(d.why) for d in result.divergence.differences)
    assert "collective schedules differ" in text and schedule.said in page


def test_tlparses_diverging_schedules_part_inside_a_graph_that_ends_early_on_one_rank() -> None:
    """tlparse warns of diverging sequences; rank 1's graph_one lacks the reduce_scatter the others issue, and
    the log cannot tell whether rank 1 makes it outside the graph."""
    result, _, _ = _said(SCHEDULE)
    [schedule] = [d for d in result.divergence.differences if d.aspect == "collective schedule"]
    assert schedule.why.startswith("graph 0/0 ends after 2 collectives on rank 1 where on ranks 0, 2 it goes on with "
                                   "reduce_scatter_tensor")
    assert not _claims_hang(schedule.why)


def test_parting_compares_whole_sequences_and_meets_only_across_graphs() -> None:
    one = [Step("all_reduce", "", "0/0", "f"), Step("all_gather_into_tensor", "", "0/0", "f")]
    assert parting({0: one, 1: list(one)}) is None
    inside = parting({0: one, 1: [one[0], Step("reduce_scatter_tensor", "", "0/0", "f")]})
    assert inside is not None and inside.index == 1 and inside.cannot_meet
    # the same place, but another graph on each rank (or another frame under one compile id): not known to clash
    across = parting({0: one, 1: [one[0], Step("reduce_scatter_tensor", "", "1/0", "g")]})
    assert across is not None and not across.cannot_meet
    frames = parting({0: one, 1: [one[0], Step("reduce_scatter_tensor", "", "0/0", "kernel")]})
    assert frames is not None and not frames.cannot_meet
    # in place and functional forms of one operation pair
    assert parting({0: [Step("all_reduce_", "", "0/0")], 1: [Step("all_reduce", "", "0/0")]}).cannot_meet is False


def test_collectives_of_unknown_graphs_differ_without_a_claim() -> None:
    """Steps whose graph is not known (a damaged merge): neither a hang nor a graph that ended early."""
    from tracers.ranks.wording import parting_words

    steps = {0: [Step("all_reduce", "f32[4]")], 1: [Step("all_gather_into_tensor", "f32[4]")]}
    where, why = parting_words(parting(steps), steps, "none")
    assert where == "collective 1 is all_reduce f32[4] on rank 0 and all_gather_into_tensor f32[4] on rank 1"
    assert not any(word in why for word in HANG) and "not in it" in why
