"""HTML for a toolbox recording (templates/toolbox.html): the comparison tables and each tool's excerpts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from tracers.report.templating import render_from
from tracers.vocabulary.durations import duration_s

from .detect import Evidence
from .recording import Recording, ToolRecord

YES, NO, NOT_RUN = "✓", "—", "?"


_MARKS = {"yes": YES, "no": NO, "not_run": NOT_RUN}


@dataclass(frozen=True)
class Caption:
    """Where and with what the recording was made."""

    device: str
    device_name: str
    torch_version: str
    python: str
    date: str
    command: str


@dataclass(frozen=True)
class Cell:
    evidence: Evidence | None  # where the tool's output showed the fact
    where: str  # the evidence's file, short
    not_run: bool


@dataclass(frozen=True)
class TableView:
    title: str
    tools: tuple[ToolRecord, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]  # (fact, a cell per tool)
    caption: Caption


@dataclass(frozen=True)
class CostRow:
    tool: ToolRecord
    usage: str
    wall: str
    wall_ratio: str
    cpu: str
    cpu_ratio: str
    after: tuple[tuple[str, str], ...]  # post-processing steps: (label, wall time)
    written: str


@dataclass(frozen=True)
class CostsView:
    rows: tuple[CostRow, ...]
    spread: str
    caption: Caption


@dataclass(frozen=True)
class OutputView:
    tool: ToolRecord
    title: str
    commands: str
    evidence: tuple[tuple[str, Evidence], ...]  # (fact, its excerpt), in table order
    absent: str  # the facts asked for that its output lacks
    files: tuple[str, str] | None  # (summary, listing) of the files it wrote
    caption: Caption


def _bytes(size: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def short_source(source: str) -> str:
    """``tl_out/-_0_0_0/dynamo_graph_break_reason_1.txt`` -> ``dynamo_graph_break_reason_1.txt``; a JSON
    string's key path is kept short too (``trace.json#artifacts[2:…]``)."""
    path, _, key = source.partition("#")
    name = PurePosixPath(path).name or path
    return f"{name}#…" if key else name


def caption(recording: Recording) -> Caption:
    args = f" {' '.join(recording.args)}" if recording.args else ""
    return Caption(recording.device.upper(), recording.device_name, recording.torch_version, recording.python,
                   recording.recorded_at[:10], recording.example + args)


def render_table(recording: Recording, tool_ids: tuple[str, ...] = (), feature_ids: tuple[str, ...] = (),
                 title: str = "") -> str:
    """Facts down, tools across: a mark where the tool's output showed the fact, with where it was found."""
    tools = [tool for tool in recording.tools if not tool_ids or tool.id in tool_ids]
    features = [(id_, name) for id_, name in recording.features if not feature_ids or id_ in feature_ids]
    rows = []
    for feature_id, feature_title in features:
        cells = []
        for tool in tools:
            evidence = tool.shows(feature_id)
            cells.append(Cell(evidence, short_source(evidence.source) if evidence is not None else "",
                              tool.status == "missing"))
        rows.append((feature_title, tuple(cells)))
    view = TableView(title, tuple(tools), tuple(rows), caption(recording))
    return render_from("walkthrough", "toolbox.html", part="table", view=view, marks=_MARKS)


def _ratio(tool: ToolRecord, baseline: ToolRecord | None, attribute: str) -> str:
    mine = tool.example_step()
    plain = baseline.example_step() if baseline else None
    if tool is baseline or mine is None or plain is None or getattr(plain, attribute) <= 0:
        return ""
    return f"{getattr(mine, attribute) / getattr(plain, attribute):.2f}×"


def render_costs(recording: Recording, tool_ids: tuple[str, ...] = ()) -> str:
    """One row per tool: how it is run, its time against the plain run, and how much it writes."""
    baseline = recording.baseline
    rows = []
    for tool in recording.tools:
        if tool_ids and tool.id not in tool_ids:
            continue
        step = tool.example_step()
        after = tuple((other.label, duration_s(other.wall_s)) for other in tool.steps if not other.runs_example)
        written = (f"{_bytes(tool.stream_bytes)} printed" +
                   (f", {tool.file_count} file{'s' if tool.file_count != 1 else ''} ({_bytes(tool.file_bytes)})"
                    if tool.file_count else ""))
        rows.append(CostRow(tool, tool.usage.replace("EXAMPLE", recording.example),
                            duration_s(step.wall_s) if step else "", _ratio(tool, baseline, "wall_s"),
                            duration_s(step.cpu_s) if step else "", _ratio(tool, baseline, "cpu_s"), after, written))
    view = CostsView(tuple(rows), _spread(recording), caption(recording))
    return render_from("walkthrough", "toolbox.html", part="costs", view=view)


def _spread(recording: Recording) -> str:
    """How far the machine's timings wandered: the plain run, first and again last."""
    first = recording.baseline.example_step() if recording.baseline else None
    again = recording.plain_again
    if first is None or again is None:
        return "no repeat of the plain run was recorded, so the noise is unknown."
    return (f"the plain run took {duration_s(first.wall_s)} ({duration_s(first.cpu_s)} CPU) first and "
            f"{duration_s(again.wall_s)} at the end ({duration_s(again.cpu_s)} CPU): differences of that size are noise.")


def render_output(recording: Recording, tool: ToolRecord, feature_ids: tuple[str, ...] = (),
                  files: bool = False, title: str = "") -> str:
    """The tool's commands, then the recorded excerpt for each fact it showed (in table order)."""
    titles = dict(recording.features)
    order = [id_ for id_, _ in recording.features]
    chosen = [item for item in tool.evidence if not feature_ids or item.feature in feature_ids]
    chosen.sort(key=lambda evidence: order.index(evidence.feature) if evidence.feature in order else 99)
    absent = [titles.get(id_, id_) for id_ in feature_ids if tool.shows(id_) is None]
    listing = None
    if files and tool.files:
        more = tool.file_count - len(tool.files)
        summary = f"{tool.file_count} files written, {_bytes(tool.file_bytes)}" + (
            f" (the first {len(tool.files)} by path below)" if more > 0 else "")
        listing = (summary, "\n".join(f"{name}  ({_bytes(size)})" for name, size in tool.files))
    view = OutputView(tool, title or tool.name, "\n".join(f"$ {step.command}" for step in tool.steps),
                      tuple((titles.get(item.feature, item.feature), item) for item in chosen), "; ".join(absent),
                      listing, caption(recording))
    return render_from("walkthrough", "toolbox.html", part="output", view=view)
