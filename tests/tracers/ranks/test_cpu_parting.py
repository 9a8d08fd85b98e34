"""Collectives that cannot pair are a hang only under NCCL (CUDA tensors); on CPU tensors (gloo) no hang is claimed
(issue 54, item 8: a 'hang' claimed for a completed 2-rank gloo run)."""

from __future__ import annotations

import pytest

from tracers.ranks.collectives import Step, parting
from tracers.ranks.wording import HANG, parting_words

pytestmark = pytest.mark.pure


def _meaning(device: str) -> str:
    steps = {0: (Step("all_reduce", f"f32[4][1]{device}", "0/0", "f"),),
             1: (Step("all_gather_into_tensor", f"f32[4][1]{device}", "0/0", "f"),)}
    return parting_words(parting(steps), steps, "none")[1]


def test_cpu_collectives_that_cannot_pair_claim_no_hang() -> None:
    said = _meaning("cpu")
    assert "cannot pair" in said and "hang" not in said and "gloo" in said


def test_cuda_collectives_that_cannot_pair_are_a_hang_under_nccl() -> None:
    assert _meaning("cuda").endswith(HANG)
