"""HTML for a toolbox recording: the comparison tables and each tool's excerpts, every recorded string escaped."""

from __future__ import annotations

from html import escape
from pathlib import PurePosixPath

from tracers.vocabulary.durations import duration_s

from .recording import Recording, ToolRecord

YES, NO, NOT_RUN = "✓", "—", "?"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


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


def caption(recording: Recording) -> str:
    """Where and with what the recording was made (HTML, every value escaped)."""
    args = f" {' '.join(recording.args)}" if recording.args else ""
    return (f"Recorded on {_e(recording.device.upper())} ({_e(recording.device_name)}) with torch "
            f"{_e(recording.torch_version)}, Python {_e(recording.python)}, {_e(recording.recorded_at[:10])}: "
            f"<code>{_e(recording.example + args)}</code>")


def _status_note(tool: ToolRecord) -> str:
    if tool.status == "missing":
        return f'<div class="wt-tb-status">not run: {_e(tool.error)}</div>'
    if tool.status == "failed":
        return f'<div class="wt-tb-status">failed: {_e(tool.error)}</div>'
    return ""


def render_table(recording: Recording, tool_ids: tuple[str, ...] = (), feature_ids: tuple[str, ...] = (),
                 title: str = "") -> str:
    """Facts down, tools across: a mark where the tool's output showed the fact, with where it was found."""
    tools = [tool for tool in recording.tools if not tool_ids or tool.id in tool_ids]
    features = [(id_, name) for id_, name in recording.features if not feature_ids or id_ in feature_ids]
    head = "".join(f'<th scope="col">{_e(tool.name)}{_status_note(tool)}</th>' for tool in tools)
    rows = []
    for feature_id, feature_title in features:
        cells = []
        for tool in tools:
            evidence = tool.shows(feature_id)
            if evidence is not None:
                detail = f'<span class="wt-tb-detail">{_e(evidence.detail)}</span>' if evidence.detail else ""
                cells.append(f'<td class="wt-tb-yes" title="{_e(evidence.source)}, line {evidence.line}">'
                             f'{YES} {detail}<span class="wt-tb-where">{_e(short_source(evidence.source))}'
                             f"</span></td>")
            elif tool.status == "missing":
                cells.append(f'<td class="wt-tb-notrun">{NOT_RUN}</td>')
            else:
                cells.append(f'<td class="wt-tb-no">{NO}</td>')
        rows.append(f'<tr><th scope="row">{_e(feature_title)}</th>{"".join(cells)}</tr>')
    heading = f'<div class="wt-tb-title">{_e(title)}</div>' if title else ""
    return (f'<div class="wt-toolbox">{heading}<div class="wt-tb-scroll"><table class="wt-tb-table">'
            f'<thead><tr><th scope="col">shows …</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<div class="wt-tb-caption">{caption(recording)}. {YES}: found in the tool\'s own output '
            f"(hover for the file and line); {NO}: not in it; {NOT_RUN}: the tool was not run. Lines a plain run "
            f"prints too are not counted as the tool's.</div></div>")


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
        after = [other for other in tool.steps if not other.runs_example]
        extra = ", ".join(f"{_e(other.label)} {duration_s(other.wall_s)}" for other in after)
        if tool.status == "missing":
            timing = f'<td colspan="5">{_status_note(tool)}</td>'
        else:
            timing = (f"<td>{duration_s(step.wall_s) if step else ''}</td><td>{_ratio(tool, baseline, 'wall_s')}</td>"
                      f"<td>{duration_s(step.cpu_s) if step else ''}</td><td>{_ratio(tool, baseline, 'cpu_s')}</td>"
                      f"<td>{extra}</td>")
        written = (f"{_bytes(tool.stream_bytes)} printed" +
                   (f", {tool.file_count} file{'s' if tool.file_count != 1 else ''} ({_bytes(tool.file_bytes)})"
                    if tool.file_count else ""))
        versions = "".join(f'<span class="wt-tb-where">{_e(version)}</span>' for version in tool.versions)
        failed = _status_note(tool) if tool.status == "failed" else ""
        usage = tool.usage.replace("EXAMPLE", recording.example)
        rows.append(f'<tr><th scope="row">{_e(tool.name)}{versions}{failed}</th><td>{_e(tool.kind)}</td>'
                    f"<td><code>{_e(usage)}</code></td>{timing}"
                    f"<td>{written if tool.status != 'missing' else ''}</td></tr>")
    return ('<div class="wt-toolbox"><div class="wt-tb-scroll"><table class="wt-tb-table wt-tb-costs"><thead><tr>'
            '<th scope="col">tool</th><th scope="col">switched on by</th><th scope="col">used as</th>'
            '<th scope="col">wall</th><th scope="col">× plain</th><th scope="col">CPU</th>'
            '<th scope="col">× plain</th><th scope="col">afterwards</th><th scope="col">output</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div><div class="wt-tb-caption">{caption(recording)}. '
            f"Wall and CPU time of the example's run under each tool, one run each; {_spread(recording)} "
            "“afterwards”: post-processing steps, such as tlparse.</div></div>")


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
    blocks = [f'<div class="wt-tb-title">{_e(title or tool.name)} <span class="wt-tb-kind">{_e(tool.kind)}</span>'
              f"</div>"]
    if tool.note:
        blocks.append(f'<div class="wt-tb-note">{_e(tool.note)}</div>')
    commands = "\n".join(f"$ {step.command}" for step in tool.steps)
    if commands:
        blocks.append(f'<pre class="wt-tb-command">{_e(commands)}</pre>')
    blocks.append(_status_note(tool))
    order = [id_ for id_, _ in recording.features]
    chosen = [item for item in tool.evidence if not feature_ids or item.feature in feature_ids]
    for item in sorted(chosen, key=lambda evidence: order.index(evidence.feature) if evidence.feature in order else 99):
        detail = f" · {_e(item.detail)}" if item.detail else ""
        blocks.append(
            f'<div class="wt-tb-excerpt"><div class="wt-tb-head"><strong>{_e(titles.get(item.feature, item.feature))}'
            f'</strong>{detail}<span class="wt-tb-where">{_e(item.source)}, line {item.line}</span></div>'
            f"<pre>{_e(item.excerpt)}</pre></div>")
    if feature_ids:
        absent = [titles.get(id_, id_) for id_ in feature_ids if tool.shows(id_) is None]
        if absent:
            blocks.append(f'<div class="wt-tb-note">Not in its output: {_e("; ".join(absent))}.</div>')
    if files and tool.files:
        listed = "\n".join(f"{name}  ({_bytes(size)})" for name, size in tool.files)
        more = tool.file_count - len(tool.files)
        summary = f"{tool.file_count} files written, {_bytes(tool.file_bytes)}" + (
            f" (the first {len(tool.files)} by path below)" if more > 0 else "")
        blocks.append(f'<details class="wt-tb-files"><summary>{_e(summary)}</summary><pre>{_e(listed)}</pre></details>')
    blocks.append(f'<div class="wt-tb-caption">{caption(recording)}.</div>')
    return f'<div class="wt-toolbox wt-tb-output">{"".join(blocks)}</div>'
