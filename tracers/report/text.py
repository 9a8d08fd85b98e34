"""Small text helpers shared by the renderer's parts: span labels, sizes, escaping."""

from __future__ import annotations

from html import escape

from tracers.tracefile.events import Span
from tracers.tracefile.stages import TARGET_BY_NAME
from tracers.vocabulary.durations import duration


def esc(value: object) -> str:
    """Escape anything from a trace or torch for HTML text and double-quoted attributes."""
    return escape(str(value), quote=True)


def target_label(target: str) -> str:
    """``Scheduler.fuse_nodes`` for a table target; a region's own name; else the qualname's tail."""
    known = TARGET_BY_NAME.get(target)
    if known:
        return known.short
    return target.split(":", 1)[-1]


def size(chars: int) -> str:
    return f"{chars / 1000:.1f} kB" if chars >= 1000 else f"{chars} B"


def span_title(span: Span, stage_name: str) -> str:
    """Hover text of a span: what, which stage, how long, which compile."""
    parts = [span.target, f"stage: {stage_name}", duration(span.duration_ns)]
    if span.compile_id:
        parts.append(f"compile {span.compile_id}")
    if span.frame:
        parts.append(f"frame {span.frame}")
    if span.error:
        parts.append(f"raised {span.error}")
    if span.unfinished:
        parts.append("unfinished when the run ended")
    return "\n".join(parts)
