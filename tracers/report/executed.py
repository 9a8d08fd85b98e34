"""The personal page's "Lines that ran": each hooked function's source from the installed torch, ran lines marked."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from tracers.vocabulary.reading import allowed_roots, read_source
from tracers.vocabulary.releases import source_url
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER, TARGET_BY_NAME

from .text import esc, target_label

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
    html = highlight(code, PythonLexer(stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True))
    out = html.split("\n")
    return (out + [""] * len(lines))[:len(lines)]


def render_function(target: str, path: str, first: int, last: int, counts: dict[int, int], torch: TorchSource,
                    git_sha: str) -> str:
    """One hooked function: a summary line with its counts, then its source with ran lines marked."""
    # only a source file inside the installed torch: the path is the trace's say-so (a shared trace may name any)
    text = read_source(str(torch.root / path), allowed_roots(torch.root / "torch"))
    source = [line + "\n" for line in text.split("\n")] if text is not None else []  # on \n only, as Python counts
    label = f"<code>{esc(target_label(target))}</code> <span class=\"wt-muted\">{esc(path)}:{first}–{last}</span>"
    total = sum(counts.values())
    summary = (f"{label} · {len(counts)} line{'s' if len(counts) != 1 else ''} ran, "
               f"{total} line event{'s' if total != 1 else ''}, hottest {max(counts.values())}×")
    if len(source) < last:
        return (f'<details class="wt-ran-function" data-target="{esc(target)}"><summary>{summary}</summary>'
                f'<p class="wt-note">{esc(path)} is not in the installed torch.</p></details>')
    fragments = dict(zip(range(first, last + 1), _highlighted(source[first - 1:last])))
    rows = []
    for item in shown_lines(first, last, set(counts)):
        if isinstance(item, tuple):
            rows.append(f'<span class="wt-line wt-fold">   ⋯ lines {item[0]}–{item[1]} did not run</span>')
            continue
        count = counts.get(item)
        classes, title, hits = "wt-line", "", '<span class="wt-hits"></span>'
        if count:
            classes, title = "wt-line wt-ran", f' title="ran {count}×"'
            hits = f'<span class="wt-hits">{count}×</span>'
        url = source_url(path, item, None, git_sha)
        rows.append(f'<span class="{classes}"{title}>{hits}<a class="wt-lineno" href="{esc(url)}">{item}</a>'
                    f'<span class="wt-code">{fragments[item]}</span></span>')
    return (f'<details class="wt-ran-function" data-target="{esc(target)}"><summary>{summary}</summary>'
            f'<div class="highlight"><pre>{"".join(rows)}</pre></div></details>')


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
    heading = "<h2>Lines that ran</h2>"
    reason = why_not(trace, torch)
    if reason is None and not trace.executed_lines:
        reason = "no line ran in the watched functions."
    if reason is not None:
        return f'<section class="wt-trace wt-trace-lines">{heading}<p class="wt-note">Not shown: {esc(reason)}</p></section>'
    functions = []
    covered: set[tuple[str, int]] = set()
    for target, (path, first, last) in sorted(trace.info.target_sources.items(), key=_order):
        lines = trace.executed_lines.get(path, {})
        counts = {line: count for line, count in lines.items() if first <= line <= last}
        if counts:
            covered.update((path, line) for line in counts)
            functions.append(render_function(target, path, first, last, counts, torch, trace.info.torch_git_sha))
    others = sum(1 for path, lines in trace.executed_lines.items() for line in lines if (path, line) not in covered)
    intro = (f'<p class="wt-note">How often each line ran inside the hooked torch functions '
             f'(torch {esc(trace.info.torch_version)}, source from {esc(torch.root / "torch")}). Counts are '
             "line events: the first line of a statement written over several lines counts again each time "
             "execution comes back to it, so it can read 4× in a function that ran twice.</p>")
    if others:
        intro += (f'<p class="wt-note">{others} more line{"s" if others != 1 else ""} ran in other watched code '
                  "(the walkthrough's excerpts): the trace file has them.</p>")
    return f'<section class="wt-trace wt-trace-lines">{heading}{intro}{"".join(functions)}</section>'
