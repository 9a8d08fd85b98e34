"""The personal page's "Lines that ran": each hooked function's source from the installed torch, ran lines marked."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from tracers.vocabulary.reading import allowed_roots, read_source
from tracers.vocabulary.releases import source_url
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER, TARGET_BY_NAME

from .highlight import python_html
from .templating import render, safe
from .text import target_label

CONTEXT = 2  # lines shown around the lines that ran
MIN_GAP = 6  # a longer run of lines that did not run is folded into one line


@dataclass(frozen=True)
class TorchSource:
    """A torch whose files the page reads: its version, git commit and the folder that holds ``torch/``."""

    version: str
    git_sha: str
    root: Path


def installed_source() -> TorchSource | None:
    """The installed torch (imported, for its version and commit), or None when there is none."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    import torch

    return TorchSource(torch.__version__, getattr(torch.version, "git_version", "") or "",
                       Path(spec.origin).resolve().parent.parent)


def why_not(trace: Trace, torch: TorchSource | None) -> str | None:
    """Why the installed torch's lines cannot stand for the recorded ones; None when they can."""
    info = trace.info
    if torch is None:
        return "torch is not installed here, so its source cannot be shown."
    if torch.version != info.torch_version:
        return (f"the trace was recorded with torch {info.torch_version}, the installed torch is {torch.version}: "
                "its line numbers may differ, so its source is not shown.")
    if info.torch_git_sha and torch.git_sha != info.torch_git_sha:
        return (f"the trace was recorded with torch at commit {info.torch_git_sha[:12]}, the installed torch is at "
                f"{torch.git_sha[:12] or 'an unknown commit'}: its source is not shown.")
    return None


def shown_lines(first: int, last: int, ran: set[int]) -> list[int | tuple[int, int]]:
    """Line numbers to show, with folded runs of lines that did not run as (from, to)."""
    near = {line for hit in ran for line in range(hit - CONTEXT, hit + CONTEXT + 1)} | {first}
    shown: list[int | tuple[int, int]] = []
    gap: list[int] = []
    for line in range(first, last + 1):
        if line in near:
            if gap:
                shown.extend([(gap[0], gap[-1])] if len(gap) >= MIN_GAP else gap)
                gap = []
            shown.append(line)
        else:
            gap.append(line)
    if gap:
        shown.extend([(gap[0], gap[-1])] if len(gap) >= MIN_GAP else gap)
    return shown


def _highlighted(lines: list[str]) -> list[str]:
    code = textwrap.dedent("".join(lines)).rstrip("\n")
    out = python_html(code).split("\n")  # its spans close at each line's end
    return (out + [""] * len(lines))[:len(lines)]


@dataclass(frozen=True)
class SourceLine:
    """A shown line of source (``fold``: a run of lines that did not run, as (from, to), instead)."""

    line: int = 0
    count: int = 0  # times it ran; 0: not
    url: str = ""
    code: Markup = Markup()  # the line, coloured (highlight.py)
    fold: tuple[int, int] | None = None


@dataclass(frozen=True)
class FunctionLines:
    """One hooked function: a summary line with its counts, then its source (None: not in the installed torch)."""

    target: str
    label: str
    path: str
    first: int
    last: int
    ran: int  # lines that ran
    events: int
    hottest: int
    rows: tuple[SourceLine, ...] | None


@dataclass(frozen=True)
class ExecutedView:
    reason: str | None  # why the source is not shown
    torch_version: str = ""
    source: str = ""  # the folder torch's files were read from
    others: int = 0  # lines that ran in other watched code (the walkthrough's excerpts)
    functions: tuple[FunctionLines, ...] = ()


def function_lines(target: str, path: str, first: int, last: int, counts: dict[int, int], torch: TorchSource,
                   git_sha: str) -> FunctionLines:
    """One hooked function's lines, the ran ones with their counts."""
    # only a source file inside the installed torch: the path is the trace's say-so (a shared trace may name any)
    text = read_source(str(torch.root / path), allowed_roots(torch.root / "torch"))
    source = [line + "\n" for line in text.split("\n")] if text is not None else []  # on \n only, as Python counts
    rows = None
    if len(source) >= last:
        fragments = dict(zip(range(first, last + 1), _highlighted(source[first - 1:last])))
        rows = tuple(SourceLine(fold=item) if isinstance(item, tuple) else
                     SourceLine(item, counts.get(item) or 0, source_url(path, item, None, git_sha),
                                safe(fragments[item]))
                     for item in shown_lines(first, last, set(counts)))
    return FunctionLines(target, target_label(target), path, first, last, len(counts), sum(counts.values()),
                         max(counts.values()), rows)


_TABLE_INDEX = {name: index for index, name in enumerate(TARGET_BY_NAME)}  # the stages table's own order


def _order(item: tuple[str, list]) -> tuple[int, int, str]:
    """Pipeline order: by stage, then as the stages table lists the targets; unknown targets last."""
    known = TARGET_BY_NAME.get(item[0])
    stage = STAGE_ORDER.get(known.stage, len(STAGE_ORDER)) if known else len(STAGE_ORDER)
    return stage, _TABLE_INDEX.get(item[0], len(_TABLE_INDEX)), item[0]


def render_executed(trace: Trace, torch: TorchSource | None) -> str:
    """The section, or "" when the trace counted no lines; a one-line note when the source cannot be shown."""
    if not trace.info.lines_recorded and not trace.executed_lines:
        return ""
    reason = why_not(trace, torch)
    if reason is None and not trace.executed_lines:
        reason = "no line ran in the watched functions."
    if reason is not None:
        return render("executed.html", view=ExecutedView(reason))
    functions = []
    covered: set[tuple[str, int]] = set()
    for target, (path, first, last) in sorted(trace.info.target_sources.items(), key=_order):
        lines = trace.executed_lines.get(path, {})
        counts = {line: count for line, count in lines.items() if first <= line <= last}
        if counts:
            covered.update((path, line) for line in counts)
            functions.append(function_lines(target, path, first, last, counts, torch, trace.info.torch_git_sha))
    others = sum(1 for path, lines in trace.executed_lines.items() for line in lines if (path, line) not in covered)
    view = ExecutedView(None, trace.info.torch_version, str(torch.root / "torch"), others, tuple(functions))
    return render("executed.html", view=view)
