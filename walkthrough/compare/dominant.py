"""Which stage dominates a release's runs by its own (exclusive) time: said as a change only where every run agrees."""

from __future__ import annotations

from tracers.analysis.one_time import ONE_TIME_STAGES
from tracers.analysis.spread import Spread
from tracers.tracefile.stages import STAGE_BY_ID

# As the trace's own dominant-stage finding: the entry, frame and user spans wrap everything, and one-time setup has
# its own finding, so the candidates are the per-compile stages.
_WRAPPERS = frozenset({"entry", "frame", "user", *ONE_TIME_STAGES})


def _title(stage: str) -> str:
    return STAGE_BY_ID[stage].title if stage in STAGE_BY_ID else stage


def _leader(runs: list[dict[str, int]]) -> str | None:
    """The stage with the most own time in every run, by more than the spread of the runner-up; None otherwise."""
    leaders = {max(inner, key=inner.get) for run in runs if (inner := {s: ns for s, ns in run.items()
                                                                       if s not in _WRAPPERS})}
    if len(leaders) != 1:
        return None
    (stage,) = leaders
    others = {s for run in runs for s in run if s not in _WRAPPERS and s != stage}
    ahead = min(run.get(stage, 0) for run in runs)
    return stage if all(ahead > max(run.get(other, 0) for run in runs) for other in others) else None


def dominant_statement(a_runs: list[dict[str, int]], b_runs: list[dict[str, int]], a: str, b: str) -> str:
    """One sentence on the dominant stage; a change only where both releases' runs each agree on a leader."""
    if len(a_runs) < 2 or len(b_runs) < 2:
        return "One run of a release: its spread was not measured, so which stage dominates is not compared."
    leader_a, leader_b = _leader(a_runs), _leader(b_runs)
    runs = f"{len(a_runs)} and {len(b_runs)} runs"
    if leader_a and leader_b and leader_a == leader_b:
        return f"{_title(leader_a)} has the most own time under both releases (in every one of the {runs})."
    if leader_a and leader_b:
        return (f"The stage with the most own time changed: {_title(leader_a)} under {a}, {_title(leader_b)} under "
                f"{b}, in every run and beyond the run-to-run spread.")
    return ("No stage has the most own time in every run of both releases beyond the run-to-run spread: which stage "
            "dominates is within the spread, not a change.")


def spread_of(runs: list[dict[str, int]], stage: str) -> Spread | None:
    values = tuple(run[stage] for run in runs if stage in run)
    return Spread(values) if values else None
