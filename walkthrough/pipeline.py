"""The landing page's pipeline map as plain data: every stage of the stages table, in order, with its chapter."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile.stages import STAGES, Stage


@dataclass(frozen=True)
class MapBox:
    number: int
    stage_id: str
    title: str
    chapter: str  # docname of the stage's chapter
    linked: bool  # False while that chapter is not written yet: the box says so instead of linking nowhere
    entry_points: tuple[str, ...]  # short names, e.g. ``Scheduler.fuse_nodes``


def pipeline_boxes(existing_docs: Iterable[str], stages: tuple[Stage, ...] = STAGES) -> tuple[MapBox, ...]:
    """One box per stage in pipeline order; ``existing_docs`` are the docnames the build has."""
    existing = set(existing_docs)
    return tuple(
        MapBox(number, stage.id, stage.title, stage.chapter, stage.chapter in existing,
               tuple(target.short for target in stage.targets))
        for number, stage in enumerate(stages, start=1)
    )
