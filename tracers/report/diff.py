"""The stage diff of two traces as HTML: time per stage side by side, one-sided targets, counts, kernels, speed."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.analysis.diff import TraceDiff
from tracers.tracefile.events import RunInfo
from tracers.tracefile.stages import TARGET_BY_NAME
from tracers.vocabulary.durations import duration

from .options import Links
from .palette import colour, stage_title
from .speed_diff import render_runtime_diff
from .text import esc, target_label

MAX_KERNELS = 12  # names shown per side; the count says how many there are
MAX_CODE_ROWS = 15  # functions and lines shown in the compile-time-by-your-code part; the largest changes first
BAR_SHARE = 70  # percent of the cell the longest bar takes: its time label sits beside it


@dataclass(frozen=True)
class Side:
    """One side of the diff as a reader sees it: a short name (``CPU``, ``CUDA warm``) and its run."""

    name: str
    info: RunInfo
    file: str = ""  # the recording's file name
    version_note: str = ""  # e.g. "not the reference 2.13.0": shown beside the torch version


def side_names(a: RunInfo, b: RunInfo) -> tuple[str, str]:
    """``CPU``/``CUDA`` when the devices differ, ``cold``/``warm`` when the caches do, else the releases."""
    device = {"cpu": "CPU", "cuda": "CUDA"}
    name_a, name_b = device.get(a.device, a.device), device.get(b.device, b.device)
    if a.device != b.device:
        return name_a, name_b
    if a.cache_mode != b.cache_mode:
        return f"{name_a} {a.cache_mode}", f"{name_b} {b.cache_mode}"
    return f"{name_a} {a.torch_version}", f"{name_b} {b.torch_version}"


def kernel_kinds(names: tuple[str, ...]) -> str:
    """``3 cpp_fused_*`` / ``2 triton_*``: which code generator wrote the kernels."""
    cpp = sum(name.startswith("cpp_fused_") for name in names)
    triton = sum(name.startswith("triton_") for name in names)
    kinds = [f"{count} {kind}" for count, kind in ((cpp, "cpp_fused_*"), (triton, "triton_*")) if count]
    return ", ".join(kinds) or "none"


def _stage_cell(stage: str, links: Links) -> str:
    title = esc(stage_title(stage))
    swatch = f'<span class="wt-swatch" style="background:{esc(colour(stage))}"></span>'
    url = links.chapter_url(stage)
    return f'<a href="{esc(url)}">{swatch}{title}</a>' if url else f"{swatch}{title}"


def _time_cell(ns: int | None, calls: int, longest: int, stage: str, other: str) -> str:
    """A bar and the time; where the stage never ran on this side, a mark naming the ``other`` side."""
    if ns is None:
        return f'<td class="wt-diff-time wt-diff-absent"><span class="wt-diff-only">only in {esc(other)}</span></td>'
    width = BAR_SHARE * ns / longest if longest else 0
    calls_text = f"{calls} call" + ("s" if calls != 1 else "")
    return (f'<td class="wt-diff-time" data-ns="{ns}" title="{esc(calls_text)}">'
            f'<span class="wt-diff-bar" style="width:{width:.1f}%;background:{esc(colour(stage))}"></span>'
            f'<span class="wt-diff-value">{esc(duration(ns))}</span></td>')


def render_stages(result: TraceDiff, a: Side, b: Side, links: Links = Links()) -> str:
    """One row per stage: bars on one scale for both sides, a mark where a stage ran on one side only."""
    longest = max([row.a_ns or 0 for row in result.stages] + [row.b_ns or 0 for row in result.stages] + [0])
    rows = []
    for row in result.stages:
        if row.a_ns is not None and row.b_ns is not None:
            ratio = f"{row.b_ns / row.a_ns:.2f}×" if row.a_ns else ""
            kind = "both"
        else:
            ratio, kind = "", ("a" if row.b_ns is None else "b")
        rows.append(f'<tr data-stage="{esc(row.stage)}" data-ran="{kind}"><th scope="row">{_stage_cell(row.stage, links)}'
                    f"</th>{_time_cell(row.a_ns, row.a_calls, longest, row.stage, b.name)}"
                    f"{_time_cell(row.b_ns, row.b_calls, longest, row.stage, a.name)}"
                    f'<td class="wt-diff-ratio">{ratio}</td></tr>')
    head = (f'<thead><tr><th>stage</th><th>{esc(a.name)}</th><th>{esc(b.name)}</th>'
            f'<th title="{esc(b.name)} time / {esc(a.name)} time">ratio</th></tr></thead>')
    return f'<table class="wt-diff-stages">{head}<tbody>{"".join(rows)}</tbody></table>'


def _target_item(target: str, links: Links) -> str:
    known = TARGET_BY_NAME.get(target)
    label = f"<code>{esc(target_label(target))}</code>"
    source = links.source_url(target)
    if source:
        label = f'<a href="{esc(source)}">{label}</a>'
    stage = ""
    if known:
        url = links.chapter_url(known.stage)
        title = esc(stage_title(known.stage))
        stage = f' <a class="wt-stage" href="{esc(url)}">{title}</a>' if url else f' <span class="wt-stage">{title}</span>'
    return f'<li data-target="{esc(target)}" title="{esc(target)}">{label}{stage}</li>'


def render_only(result: TraceDiff, a: Side, b: Side, links: Links = Links()) -> str:
    """Entry points that fired on one side only, each with its chapter when that page exists."""
    columns = []
    for side, only, key in ((a, result.only_a, "a"), (b, result.only_b, "b")):
        items = "".join(_target_item(target, links) for target in only) or '<li class="wt-muted">none</li>'
        columns.append(f'<div class="wt-diff-only-list" data-side="{key}"><strong>ran only in {esc(side.name)}</strong>'
                       f"<ul>{items}</ul></div>")
    return f'<div class="wt-diff-targets">{"".join(columns)}</div>'


def render_counts(result: TraceDiff, a: Side, b: Side) -> str:
    rows = []
    for what, count_a, count_b in result.counts:
        differs = ' class="wt-diff-differs"' if count_a != count_b else ""
        rows.append(f'<tr data-count="{esc(what)}"{differs}><th scope="row">{esc(what)}</th>'
                    f"<td>{count_a}</td><td>{count_b}</td></tr>")
    return (f'<table class="wt-diff-counts"><thead><tr><th></th><th>{esc(a.name)}</th><th>{esc(b.name)}</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def render_compiles(result: TraceDiff, a: Side, b: Side) -> str:
    """One row per frame compile of either side, matched by the trace's compile id."""
    rows = []
    for row in result.compiles:
        differs = ' class="wt-diff-differs"' if row.differs else ""
        cells = "".join(f"<td>{esc(side.text)}</td>" if side else '<td class="wt-muted">—</td>'
                        for side in (row.a, row.b))
        rows.append(f'<tr data-compile="{esc(row.compile_id)}"{differs}><th scope="row"><code>'
                    f"{esc(row.compile_id)}</code></th>{cells}</tr>")
    if not rows:
        return '<p class="wt-muted">Neither side compiled a frame.</p>'
    return (f'<table class="wt-diff-compiles"><thead><tr><th>compile</th><th>{esc(a.name)}</th>'
            f'<th>{esc(b.name)}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def render_kernels(result: TraceDiff, a: Side, b: Side) -> str:
    """Kernel names per side, how many, and which generator wrote them (cpp_fused_* or triton_*)."""
    columns = []
    for side, names, key in ((a, result.kernels_a, "a"), (b, result.kernels_b, "b")):
        shown = "".join(f"<li><code>{esc(name)}</code></li>" for name in names[:MAX_KERNELS])
        if len(names) > MAX_KERNELS:
            shown += f'<li class="wt-muted">and {len(names) - MAX_KERNELS} more</li>'
        if not names:
            shown = '<li class="wt-muted">no kernels in the recorded code</li>'
        columns.append(f'<div class="wt-diff-kernel-list" data-side="{key}" data-kernels="{len(names)}">'
                       f"<strong>{esc(side.name)}: {len(names)} kernel{'s' if len(names) != 1 else ''}</strong> "
                       f'<span class="wt-muted">({esc(kernel_kinds(names))})</span><ul>{shown}</ul></div>')
    same = ""
    if result.kernels_a and set(result.kernels_a) == set(result.kernels_b):
        same = '<p class="wt-note">Both sides generated the same kernels.</p>'
    return f'<div class="wt-diff-kernels">{"".join(columns)}</div>{same}'


def render_code(result: TraceDiff, a: Side, b: Side) -> str:
    """Compile time by your code on each side: tracing time per function, and the lines whose kernels differ."""
    code = result.code
    if code is None or not (code.rows or code.lines):
        return ""
    rows = "".join(
        f'<tr><td><code>{esc(row.code)}</code></td>'
        f'<td class="wt-num">{esc(duration(row.a_ns)) if row.a_ns is not None else "—"}</td>'
        f'<td class="wt-num">{esc(duration(row.b_ns)) if row.b_ns is not None else "—"}</td>'
        f'<td class="wt-num">{row.a_calls} / {row.b_calls}</td></tr>' for row in code.rows[:MAX_CODE_ROWS])
    table = (f'<table class="wt-by-code-table"><thead><tr><th>function traced (time with callees)</th>'
             f'<th>{esc(a.name)}</th><th>{esc(b.name)}</th><th>calls</th></tr></thead><tbody>'
             f'<tr><td>all of Dynamo\'s tracing</td><td class="wt-num">{esc(duration(code.a_tracing_ns))}</td>'
             f'<td class="wt-num">{esc(duration(code.b_tracing_ns))}</td><td></td></tr>{rows}</tbody></table>')
    lines = "".join(f'<tr><td><code>{esc(row.line)}</code></td><td><code>{esc(", ".join(row.a_kernels) or "—")}</code>'
                    f'</td><td><code>{esc(", ".join(row.b_kernels) or "—")}</code></td></tr>'
                    for row in code.lines[:MAX_CODE_ROWS])
    if lines:
        lines = (f'<table class="wt-by-code-table"><thead><tr><th>line of your code</th><th>kernels in {esc(a.name)}'
                 f'</th><th>kernels in {esc(b.name)}</th></tr></thead><tbody>{lines}</tbody></table>')
    notes = "".join(f'<p class="wt-note">{esc(side.name)}: no codegen was seen (a cache hit, or a trace recorded '
                    'before the tracer read kernels), so its kernels come from the output code\'s comments, which '
                    'name Triton kernels and extern calls but no C++ kernel.</p>'
                    for side, comments in zip((a, b), code.from_comments) if comments and lines)
    return f'<div class="wt-by-code"><h4>Compile time by your code</h4>{table}{lines}{notes}</div>'


def _side_header(side: Side, key: str) -> str:
    info = side.info
    device = info.device + (f" ({info.device_name})" if info.device_name else "")
    version = f"torch {info.torch_version}" + (f" · {side.version_note}" if side.version_note else "")
    version_class = "wt-trace-version" + (" wt-not-reference" if side.version_note else "")
    file = f' <code class="wt-muted">{esc(side.file)}</code>' if side.file else ""
    return (f'<li data-side="{key}"><strong>{esc(side.name)}</strong>: '
            f'<span class="{version_class}" title="torch git {esc(info.torch_git_sha or "unknown")}">{esc(version)}</span>'
            f" · {esc(device)} · {esc(info.cache_mode)} caches{file}</li>")


def render_diff(result: TraceDiff, a: Side, b: Side, links: Links = Links(), title: str = "",
                caption: str = "") -> str:
    """The whole diff block, self-contained but for the trace stylesheet."""
    heading = f'<span class="wt-trace-title">{esc(title)}</span>: ' if title else ""
    header = (f'<div class="wt-trace-header">{heading}{esc(a.name)} vs {esc(b.name)}</div>'
              f'<ul class="wt-diff-sides">{_side_header(a, "a")}{_side_header(b, "b")}</ul>')
    if caption:
        header += f'<div class="wt-caption">{esc(caption)}</div>'
    parts = (("stages", render_stages(result, a, b, links)), ("targets", render_only(result, a, b, links)),
             ("counts", render_counts(result, a, b)), ("compiles", render_compiles(result, a, b)),
             ("kernels", render_kernels(result, a, b)), ("code", render_code(result, a, b)))
    if result.runtime is not None:  # a trace recorded without --vs-eager or --profile has no such part to compare
        parts += (("runtime", render_runtime_diff(result.runtime, (a.name, b.name))),)
    body = "".join(f'<section class="wt-trace-part" data-part="diff-{name}">{html}</section>' for name, html in parts)
    return f'<div class="wt-trace wt-trace-diff">{header}{body}</div>'
