"""The icicle of Dynamo's tracing time per function as SVG geometry: boxes, labels, links to zoomed views."""

from __future__ import annotations

from tracers.analysis.by_code import CodeNode
from tracers.vocabulary.durations import duration

from .text import esc

WIDTH = 1000  # viewBox units; the drawing scales with the column, text with it
ROW = 18
MIN_LABEL = 40  # narrower boxes carry their name in the hover title only
MIN_WIDTH = 1.0  # viewBox units (a thousandth of the view): thinner boxes are left out, their time in their caller


def walk(nodes: tuple[CodeNode, ...]):  # noqa: ANN202 - a generator of CodeNode
    for node in nodes:
        yield node
        yield from walk(node.children)


def icicle_svg(roots: tuple[CodeNode, ...], total: int, anchors: dict[int, str], what: str) -> str:
    boxes: list[str] = []
    depth = _place(roots, 0.0, 0, total, anchors, boxes)
    height = depth * ROW
    return (f'<svg class="wt-icicle-svg" viewBox="0 0 {WIDTH} {height}" width="100%" role="img" '
            f'aria-label="Tracing time by function: {esc(what)}">{"".join(boxes)}</svg>')


def _place(nodes: tuple[CodeNode, ...], x: float, level: int, total: int, anchors: dict[int, str],
           boxes: list[str]) -> int:
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
        label = ""
        if width >= MIN_LABEL:
            name = node.code.split(" (", 1)[0]
            room = int(width / 6.5)
            name = name if len(name) <= room else name[: max(room - 1, 1)] + "…"
            label = f'<text x="{x + 3:.1f}" y="{y + 13}">{esc(name)}</text>'
        box = (f'<rect x="{x:.1f}" y="{y}" width="{max(width - 0.5, 0.5):.1f}" height="{ROW - 1}" '
               f'class="wt-icicle-box{" wt-icicle-leaf" if not node.children else ""}"><title>{esc(title)}</title>'
               f'</rect>{label}')
        anchor = anchors.get(id(node))
        boxes.append(f'<a href="#{anchor}">{box}</a>' if anchor else box)
        deepest = max(deepest, _place(node.children, x, level + 1, total, anchors, boxes))
        x += width
    return max(deepest, level + 1) if nodes else deepest
