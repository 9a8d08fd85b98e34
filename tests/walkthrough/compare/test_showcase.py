"""The what-changed page's showcase, from its recorded runs: a real change between torch 2.13.0 and 2.14.1 (a
ContextVar read: a graph break that went away, and a recompile that moved into the step), each said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.tracefile.chrome import load
from walkthrough.compare.compute import Traced, comparison
from walkthrough.compare.model import read
from walkthrough.compare.page import render_comparison
from walkthrough.compare.said import is_change, sentence

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[3]
RECORDED = ROOT / "docs" / "_compare" / "cpu" / "contextvar_scale-2.13.0-vs-2.14.1"


def _recomputed():
    recorded = read(RECORDED / "comparison.json")
    sides = [Traced(side, [load(RECORDED / run.trace) for run in side.runs]) for side in (recorded.a, recorded.b)]
    return recorded, comparison(recorded.command, recorded.device, recorded.cache, *sides)


def test_the_recorded_showcase_is_one_build_on_both_sides_with_three_runs_each():
    recorded, _ = _recomputed()
    assert (recorded.a.release, recorded.b.release, recorded.repeat) == ("2.13.0", "2.14.1", 3)
    assert recorded.a.build == recorded.b.build == "CUDA 13.0"
    assert "without a GPU" in recorded.build_note
    assert all(len(row.a.runs) == 3 for row in recorded.stages if row.a)  # medians of three runs, each kept


def test_a_recompile_that_really_appears_in_the_step_is_said_once_with_both_releases_reasons():
    recorded, result = _recomputed()
    assert result.causes == recorded.causes  # the page's words are what its recorded runs say
    changes = [change for change in result.causes if is_change(change)]
    assert sorted((change.kind, change.change) for change in changes) == [("graph-break", "went away"),
                                                                         ("recompile", "changed")]
    recompile = next(change for change in changes if change.kind == "recompile")
    assert recompile.code.endswith(" step") and recompile.a_events == recompile.b_events == (1, 1, 1)
    text = sentence(recompile, "2.13.0", "2.14.1")
    # 2.13.0 recompiled the code after the break on the value it was handed; 2.14.1's new guard reads the ContextVar.
    assert "`___stack1 == 1.0`" in text and "SCALE.get()" in text.split("under 2.14.1", 1)[1]
    assert not [change for change in result.causes if change.change == "appeared"]
    breaks = next(change for change in changes if change.kind == "graph-break")
    assert breaks.a_events == (1, 1, 1) and breaks.b_events == (0, 0, 0)
    html = render_comparison(recorded)
    assert html.count('data-change="changed"') == 1 and html.count('data-change="went away"') == 1
