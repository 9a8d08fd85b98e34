"""The artifacts torch emitted (graphs, guards, reasons, code), grouped by compile id and highlighted."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import JsonLexer, PythonLexer, TextLexer

from tracers.analysis.guard_failures import GuardFailure
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import DECOMPILED as KIND_DECOMPILED
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Artifact, Span, Trace

from .options import ARTIFACT_FLOOR_CHARS, ARTIFACT_KINDS
from .text import esc, size, target_label

# Generated code is Python (C++ kernels sit inside it as strings); bytecode listings read fine too.
_PYTHON_KINDS = {"graph", "code", "bytecode"}
_HEAVY_METADATA = {"stack"}  # the whole Python stack of a shape symbol: kilobytes of torch internals


def select(artifacts: list[Artifact], wanted: tuple[str, ...], compile_id: str | None) -> list[Artifact]:
    """Artifacts whose kind or torch name is wanted, optionally of one compile only."""
    chosen = set(wanted)
    return [artifact for artifact in artifacts
            if (artifact.kind in chosen or artifact.name in chosen)
            and (compile_id is None or artifact.compile_id == compile_id)]


def selection_problems(traces: list[Trace], wanted: tuple[str, ...], compile_id: str | None) -> list[str]:
    """Why a selection would show nothing on purpose-blind grounds: a typo in a kind, name or compile id.

    A name counts as known when any of the traces has it: CPU and CUDA runs emit different graphs.
    """
    names = {artifact.name for trace in traces for artifact in trace.artifacts}
    problems = [f"no artifact kind or name {item!r} (kinds: {', '.join(ARTIFACT_KINDS)})"
                for item in wanted if item not in ARTIFACT_KINDS and item not in names]
    compiles = sorted({span.compile_id for trace in traces for span in trace.spans if span.compile_id}
                      | {a.compile_id for trace in traces for a in trace.artifacts if a.compile_id},
                      key=sort_key)
    if compile_id is not None and compile_id not in compiles:
        problems.append(f"no compile {compile_id!r} in this trace (it has {', '.join(compiles) or 'none'})")
    return problems


def _lexer(artifact: Artifact, text_is_metadata: bool) -> Lexer:
    if text_is_metadata:
        return JsonLexer()
    if artifact.kind in _PYTHON_KINDS or artifact.name == "fx_graph_runnable":  # a runnable repro: Python
        return PythonLexer()
    return JsonLexer() if artifact.metadata.get("encoding") == "json" else TextLexer()


def _text(artifact: Artifact) -> tuple[str, bool]:
    """The text to show and whether it is the metadata (records such as shapes carry no payload)."""
    if artifact.payload:
        return artifact.payload, False
    metadata = {key: value for key, value in artifact.metadata.items() if key not in _HEAVY_METADATA}
    return (json.dumps(metadata, indent=1, default=str), True) if metadata else ("", False)


def _code_block(text: str, lexer: Lexer, max_chars: int) -> str:
    note = ""
    if len(text) > max_chars:
        note = (f'<p class="wt-note">Cut at {max_chars:,} of {len(text):,} characters: '
                f'the trace file has the whole text.</p>')
        text = text[:max_chars]
    return f'{note}<div class="highlight"><pre>{highlight(text, lexer, HtmlFormatter(nowrap=True))}</pre></div>'


def _transformed_code(artifact: Artifact, max_chars: int) -> str:
    """Dynamo's rewritten code: decompiled to Python (depyf) beside its bytecode listing."""
    meta = artifact.metadata
    if artifact.payload:
        source = _code_block(artifact.payload, PythonLexer(), max_chars)
        heading = f"as Python ({esc(meta.get('decompiler') or 'decompiled')})"
    else:
        why = (f"depyf could not decompile it: {meta['decompile_error']}" if meta.get("decompile_error")
               else "recorded without depyf: pip install depyf to see it as Python")
        source, heading = f'<p class="wt-note">{esc(why)}</p>', "as Python"
    listing = _code_block(meta.get("listing") or "", TextLexer(), max_chars)
    return (f'<div class="wt-code-pair"><div><div class="wt-muted">{heading}</div>{source}</div>'
            f'<div><div class="wt-muted">bytecode</div>{listing}</div></div>')


def render_artifact(artifact: Artifact, spans: dict[int, Span], max_chars: int,
                    failures: Mapping[str, GuardFailure]) -> str:
    text, is_metadata = _text(artifact)
    if artifact.kind == KIND_DECOMPILED:
        body = _transformed_code(artifact, max_chars)
    elif text:
        body = _code_block(text, _lexer(artifact, is_metadata), max_chars)
        reasons = artifact.metadata.get("reasons") if artifact.kind == "recompile" else None
        if reasons and isinstance(reasons[0], str):  # torch lists every earlier version's failure: say the newest
            body = f'<p class="wt-note">Against the version before: {esc(failures[reasons[0]].sentence)}.</p>{body}'
    elif artifact.payload_size:
        body = '<p class="wt-note">Not kept in this trace (recorded with --no-code).</p>'
    else:
        body = '<p class="wt-note">Torch emitted this record without content.</p>'
    span = spans.get(artifact.span) if artifact.span is not None else None
    during = (f' <span class="wt-muted">during</span> <code>{esc(target_label(span.target))}</code>'
              if span else "")
    length = artifact.payload_size or len(text)
    return (f'<details class="wt-artifact" data-artifact="{esc(artifact.id)}" data-kind="{esc(artifact.kind)}">'
            f'<summary><code class="wt-artifact-name">{esc(artifact.name)}</code> '
            f'<span class="wt-kind">{esc(artifact.kind)}</span>{during} '
            f'<span class="wt-muted">{esc(size(length))}</span></summary>{body}</details>')


def render_artifacts(artifacts: list[Artifact], spans: list[Span], facts: TraceFacts, max_chars: int,
                     max_total_chars: int | None, failures: Mapping[str, GuardFailure]) -> str:
    """``failures``: each recompile record's newest guard failure, read (the report model's)."""
    if not artifacts:
        return '<div class="wt-trace-artifacts wt-trace-empty">No matching artifacts in this trace.</div>'
    if max_total_chars is not None:  # an equal share each, so one huge graph cannot crowd the others out
        max_chars = max(ARTIFACT_FLOOR_CHARS, min(max_chars, max_total_chars // len(artifacts)))
    by_span = {span.id: span for span in spans}
    frames = {compile_facts.compile_id: compile_facts.frame for compile_facts in facts.compiles}
    groups: dict[str | None, list[Artifact]] = defaultdict(list)
    for artifact in artifacts:
        groups[artifact.compile_id].append(artifact)
    # One compile: its artifacts are the point, show the list. Many: a list of compiles first.
    open_attr = " open" if len(groups) == 1 else ""
    sections = []
    for compile_id in sorted(groups, key=sort_key):
        items = groups[compile_id]
        frame = frames.get(compile_id) if compile_id else None
        heading = f"compile {esc(compile_id)}" if compile_id else "outside any compile"
        if frame:
            heading += f' <span class="wt-frame">{esc(frame)}</span>'
        body = "".join(render_artifact(artifact, by_span, max_chars, failures) for artifact in items)
        sections.append(f'<details class="wt-compile" data-compile="{esc(compile_id or "")}"{open_attr}>'
                        f'<summary>{heading} <span class="wt-muted">{len(items)} artifact'
                        f'{"s" if len(items) != 1 else ""}</span></summary>{body}</details>')
    return f'<div class="wt-trace-artifacts">{"".join(sections)}</div>'
