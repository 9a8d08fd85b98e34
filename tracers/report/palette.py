"""One colour per stage, fixed so that a stage looks the same on every page and in every trace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracers.tracefile.stages import STAGE_BY_ID, STAGE_ORDER

# Neighbouring stages get clearly different hues; saturated enough to read as bars, light enough for
# black text in the legend. Keyed by stage id, never by position, so adding a stage moves nothing.
STAGE_COLOURS: dict[str, str] = {
    "entry": "#8c8c8c",
    "frame": "#4e79a7",
    "bytecode": "#76b7b2",
    "guards": "#f28e2b",
    "graph": "#59a14f",
    "aot": "#b07aa1",
    "partition": "#ff9da7",
    "inductor": "#9c755f",
    "lowering": "#edc948",
    "autotune": "#b6992d",
    "scheduling": "#e15759",
    "cpu_isa": "#7f8fa6",
    "cpp": "#2f6690",
    "triton": "#86bc86",
    "wrapper": "#d4a6c8",
    "load": "#bab0ac",
    "cache": "#499894",
    "cudagraphs": "#d37295",
    "compiled_autograd": "#a0cbe8",
    "user": "#fabfd2",
}
UNKNOWN_COLOUR = "#cccccc"  # a stage from a newer tracer than this renderer


def colour(stage: str) -> str:
    return STAGE_COLOURS.get(stage, UNKNOWN_COLOUR)


def stage_title(stage: str) -> str:
    if stage == "user":
        return "Your code"
    known = STAGE_BY_ID.get(stage)
    return known.title if known else stage


def stage_sort_key(stage: str) -> int:
    return STAGE_ORDER.get(stage, len(STAGE_ORDER) + (stage == "user"))


@dataclass(frozen=True)
class StageLabel:
    """A stage as a table's row head shows it (macros.html ``stage_label``): swatch and title, linked to its chapter."""

    title: str
    colour: str
    url: str | None = None


def stage_label(stage: str, chapter_url: Callable[[str], str | None], title: str | None = None) -> StageLabel:
    return StageLabel(stage_title(stage) if title is None else title, colour(stage), chapter_url(stage))
