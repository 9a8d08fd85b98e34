"""Which lines of an excerpt ran in a recorded example, or the one-line reason they are not marked."""

from __future__ import annotations

from dataclasses import dataclass, field

from tracers.vocabulary.releases import public_version
from tracers.tracefile.names import parse_side
from tracers.tracefile.events import Trace
from walkthrough.excerpt import Excerpt


@dataclass(frozen=True)
class RanLines:
    """What an excerpt shows of a recording: file line -> times it ran, and the legend under the code."""

    legend: str
    counts: dict[int, int] = field(default_factory=dict)  # empty when nothing is marked
    marked: bool = False  # False: the legend says why no line is marked


def parse_trace_option(text: str) -> tuple[str, str, str]:
    """``mlp`` or ``mlp cuda/warm`` -> (example, device, cache); the recording defaults to cpu/cold."""
    words = text.split()
    if not 1 <= len(words) <= 2:
        raise ValueError(f":trace: {text.strip()!r} is not 'EXAMPLE' or 'EXAMPLE DEVICE/CACHE'")
    device, cache = parse_side(words[1]) if len(words) == 2 else ("cpu", "cold")
    return words[0], device, cache


def script_of(trace: Trace, example: str) -> str:
    """The traced script as its command line names it (``docs/examples/mlp.py``), else the example's name."""
    return next((arg for arg in trace.info.command if arg.endswith(".py")), example)


def ran_lines(excerpt: Excerpt, trace: Trace, example: str) -> RanLines:
    """The excerpt's lines that ran, only when the recording's torch has the excerpt's line numbers."""
    info = trace.info
    recorded = f"{example} ({info.device}) was recorded with torch {info.torch_version}"
    if public_version(info.torch_version) != public_version(excerpt.torch_version):
        return RanLines(f"{recorded}, this excerpt is from torch {excerpt.torch_version}: lines not marked")
    if info.torch_git_sha and excerpt.git_version and info.torch_git_sha != excerpt.git_version:
        return RanLines(f"{recorded} at commit {info.torch_git_sha[:12]}, this excerpt is from "
                        f"{excerpt.git_version[:12]}: lines not marked")
    if not info.lines_recorded:
        return RanLines(f"{recorded} without executed lines (record it with --lines): lines not marked")
    lines = trace.executed_lines.get(excerpt.path, {})
    counts = {line: count for line, count in sorted(lines.items()) if excerpt.start <= line <= excerpt.end}
    legend = f"lines that ran in {script_of(trace, example)}, {info.device}, torch {info.torch_version}"
    if not counts:
        watched = any(path == excerpt.path and first <= excerpt.start and excerpt.end <= last
                      for path, first, last in info.target_sources.values())
        legend += (": none of these lines ran" if watched else
                   ": none of these lines were counted (--lines-lock watches every excerpt)")
    return RanLines(legend, counts, True)
