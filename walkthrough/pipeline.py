"""The landing page's pipeline map as plain data: every stage of the stages table, in order, with its chapter."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile.stages import STAGES, Stage

_CHAPTER_NUMBER = re.compile(r"(?:^|/)(\d+)-[^/]*$")  # chapters/04-guards -> 4


@dataclass(frozen=True)
class MapBox:
    number: int  # the stage's place in the pipeline (1 …), the order of the boxes
    stage_id: str
    title: str
    chapter: str  # docname of the stage's chapter
    linked: bool  # False while that chapter is not written yet: the box says so instead of linking nowhere
    entry_points: tuple[str, ...]  # short names, e.g. ``Scheduler.fuse_nodes``
    chapter_number: int | None = None  # the chapter's number, what the prose calls it by ("chapter 4"); the box's label


def chapter_number(docname: str) -> int | None:
    """The number a chapter's file name starts with (``chapters/04-guards`` -> 4): the number its title and the
    sidebar show, since the chapters' toctree numbers them in file order."""
    found = _CHAPTER_NUMBER.search(docname)
    return int(found[1]) if found else None


def pipeline_boxes(existing_docs: Iterable[str], stages: tuple[Stage, ...] = STAGES) -> tuple[MapBox, ...]:
    """One box per stage in pipeline order; ``existing_docs`` are the docnames the build has."""
    existing = set(existing_docs)
    return tuple(
        MapBox(number, stage.id, stage.title, stage.chapter, stage.chapter in existing,
               tuple(target.short for target in stage.targets), chapter_number(stage.chapter))
        for number, stage in enumerate(stages, start=1)
    )
