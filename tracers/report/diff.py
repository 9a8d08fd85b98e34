"""The stage diff of two traces as HTML (templates/diff.html): time per stage side by side, one-sided targets,
counts, kernels, speed."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tracers.analysis.code_diff import CodeDiff
from tracers.analysis.diff import TraceDiff
from tracers.tracefile.events import RunInfo
from tracers.tracefile.stages import TARGET_BY_NAME
from tracers.vocabulary.durations import duration

from .options import Links
from .palette import StageLabel, colour, stage_label, stage_title
from .speed_diff import render_runtime_diff
from .templating import render, safe
from .text import target_label

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


@dataclass(frozen=True)
class SideView:
    key: str  # a or b
    name: str
    version: str
    version_class: str
    git: str
    device: str
    cache: str
    file: str


@dataclass(frozen=True)
class TimeCell:
    """A bar and the time; ``ns`` None: the stage never ran on this side, and the cell names the ``other``."""

    ns: int | None
    other: str
    calls: str = ""
    width: str = ""
    colour: str = ""
    time: str = ""


@dataclass(frozen=True)
class StageRow:
    stage: str
    ran: str  # both, a or b
    label: StageLabel
    a: TimeCell
    b: TimeCell
    ratio: str


@dataclass(frozen=True)
class TargetItem:
    target: str
    label: str
    source_url: str | None
    stage: StageLabel | None  # the stage of a target of the stages table


@dataclass(frozen=True)
class KernelSide:
    key: str
    name: str
    count: int
    kinds: str
    shown: tuple[str, ...]
    more: int


@dataclass(frozen=True)
class CodeRow:
    code: str
    a: str
    b: str
    a_calls: int
    b_calls: int


@dataclass(frozen=True)
class CodeView:
    a_tracing: str
    b_tracing: str
    rows: tuple[CodeRow, ...]
    lines: tuple[tuple[str, str, str], ...]  # (line, kernels under A, under B)
    from_comments: tuple[str, ...]  # the sides whose kernels were read from the output code's comments


@dataclass(frozen=True)
class DiffView:
    title: str
    caption: str
    a: SideView
    b: SideView
    stages: tuple[StageRow, ...]
    only: tuple[tuple[str, str, tuple[TargetItem, ...]], ...]  # (side key, side name, targets)
    counts: tuple[tuple[str, int, int], ...]
    compiles: tuple  # analysis.diff's compile rows
    kernels: tuple[KernelSide, ...]
    same_kernels: bool
    code: CodeView | None
    runtime: Markup | None


def _time_cell(ns: int | None, calls: int, longest: int, stage: str, other: str) -> TimeCell:
    if ns is None:
        return TimeCell(None, other)
    width = BAR_SHARE * ns / longest if longest else 0
    return TimeCell(ns, other, f"{calls} call" + ("s" if calls != 1 else ""), f"{width:.1f}", colour(stage),
                    duration(ns))


def _stages(result: TraceDiff, a: Side, b: Side, links: Links) -> tuple[StageRow, ...]:
    """One row per stage: bars on one scale for both sides, a mark where a stage ran on one side only."""
    longest = max([row.a_ns or 0 for row in result.stages] + [row.b_ns or 0 for row in result.stages] + [0])
    rows = []
    for row in result.stages:
        if row.a_ns is not None and row.b_ns is not None:
            ratio, kind = (f"{row.b_ns / row.a_ns:.2f}×" if row.a_ns else ""), "both"
        else:
            ratio, kind = "", ("a" if row.b_ns is None else "b")
        rows.append(StageRow(row.stage, kind, stage_label(row.stage, links.chapter_url),
                             _time_cell(row.a_ns, row.a_calls, longest, row.stage, b.name),
                             _time_cell(row.b_ns, row.b_calls, longest, row.stage, a.name), ratio))
    return tuple(rows)


def _target(target: str, links: Links) -> TargetItem:
    known = TARGET_BY_NAME.get(target)
    stage = StageLabel(stage_title(known.stage), "", links.chapter_url(known.stage)) if known else None
    return TargetItem(target, target_label(target), links.source_url(target), stage)


def _kernels(side: Side, key: str, names: tuple[str, ...]) -> KernelSide:
    """Kernel names of one side, how many, and which generator wrote them (cpp_fused_* or triton_*)."""
    return KernelSide(key, side.name, len(names), kernel_kinds(names), tuple(names[:MAX_KERNELS]),
                      max(0, len(names) - MAX_KERNELS))


def _code(code: CodeDiff | None, a: Side, b: Side) -> CodeView | None:
    """Compile time by your code on each side: tracing time per function, and the lines whose kernels differ."""
    if code is None or not (code.rows or code.lines):
        return None
    rows = tuple(CodeRow(row.code, duration(row.a_ns) if row.a_ns is not None else "—",
                         duration(row.b_ns) if row.b_ns is not None else "—", row.a_calls, row.b_calls)
                 for row in code.rows[:MAX_CODE_ROWS])
    lines = tuple((row.line, ", ".join(row.a_kernels) or "—", ", ".join(row.b_kernels) or "—")
                  for row in code.lines[:MAX_CODE_ROWS])
    from_comments = tuple(side.name for side, comments in zip((a, b), code.from_comments) if comments)
    return CodeView(duration(code.a_tracing_ns), duration(code.b_tracing_ns), rows, lines, from_comments)


def _side(side: Side, key: str) -> SideView:
    info = side.info
    version = f"torch {info.torch_version}" + (f" · {side.version_note}" if side.version_note else "")
    return SideView(key, side.name, version, "wt-trace-version" + (" wt-not-reference" if side.version_note else ""),
                    info.torch_git_sha or "unknown", info.device + (f" ({info.device_name})" if info.device_name else ""),
                    info.cache_mode, side.file)


def render_diff(result: TraceDiff, a: Side, b: Side, links: Links = Links(), title: str = "",
                caption: str = "") -> str:
    """The whole diff block, self-contained but for the trace stylesheet."""
    runtime = None  # a trace recorded without --vs-eager or --profile has no such part to compare
    if result.runtime is not None:
        runtime = safe(render_runtime_diff(result.runtime, (a.name, b.name)))
    only = tuple((key, side.name, tuple(_target(target, links) for target in targets))
                 for side, targets, key in ((a, result.only_a, "a"), (b, result.only_b, "b")))
    kernels = (_kernels(a, "a", result.kernels_a), _kernels(b, "b", result.kernels_b))
    same = bool(result.kernels_a) and set(result.kernels_a) == set(result.kernels_b)
    view = DiffView(title, caption, _side(a, "a"), _side(b, "b"), _stages(result, a, b, links), only,
                    tuple(result.counts), tuple(result.compiles), kernels, same, _code(result.code, a, b), runtime)
    return render("diff.html", view=view)
