"""The icicle of Dynamo's tracing time per function as SVG geometry: boxes, labels, links to zoomed views."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.analysis.by_code import CodeNode
from tracers.vocabulary.durations import duration

from .templating import render

WIDTH = 1000  # viewBox units; the drawing scales with the column, text with it
ROW = 18
MIN_LABEL = 40  # narrower boxes carry their name in the hover title only
MIN_WIDTH = 1.0  # viewBox units (a thousandth of the view): thinner boxes are left out, their time in their caller


def walk(nodes: tuple[CodeNode, ...]):  # noqa: ANN202 - a generator of CodeNode
    for node in nodes:
        yield node
        yield from walk(node.children)


@dataclass(frozen=True)
class Box:
    """One function's box: geometry in viewBox units (formatted), its hover text, its name where it fits."""

    x: str
    y: int
    width: str
    leaf: bool
    title: str
    label: str | None  # None: too narrow, the name is in the hover title only
    label_x: str
    label_y: int
    anchor: str | None  # the zoomed view of its callees


def icicle_svg(roots: tuple[CodeNode, ...], total: int, anchors: dict[int, str], what: str) -> str:
    """The icicle as SVG (templates/icicle.html)."""
    boxes: list[Box] = []
    depth = _place(roots, 0.0, 0, total, anchors, boxes)
    return render("icicle.html", width=WIDTH, height=depth * ROW, row=ROW - 1, what=what, boxes=boxes)


def _place(nodes: tuple[CodeNode, ...], x: float, level: int, total: int, anchors: dict[int, str],
           boxes: list[Box]) -> int:
    """Lay ``nodes`` out left to right from ``x`` on row ``level``; returns how many rows were used."""
    deepest = level
    for node in nodes:
        width = node.inclusive_ns / total * WIDTH
        if width < MIN_WIDTH:  # too thin to see: its time still counts in its caller's box
            x += width
            continue
        title = (f"{node.code}\n{node.calls}× · {duration(node.inclusive_ns)} with callees · "
                 f"{duration(node.exclusive_ns)} own")
        y = level * ROW
        name = None
        if width >= MIN_LABEL:
            name = node.code.split(" (", 1)[0]
            room = int(width / 6.5)
            name = name if len(name) <= room else name[: max(room - 1, 1)] + "…"
        boxes.append(Box(f"{x:.1f}", y, f"{max(width - 0.5, 0.5):.1f}", not node.children, title, name,
                         f"{x + 3:.1f}", y + 13, anchors.get(id(node))))
        deepest = max(deepest, _place(node.children, x, level + 1, total, anchors, boxes))
        x += width
    return max(deepest, level + 1) if nodes else deepest
