"""The artifacts torch emitted (graphs, guards, reasons, code), grouped by compile id and highlighted."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from collections.abc import Callable, Iterator

from markupsafe import Markup

from tracers.analysis.guard_failures import GuardFailure
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import DECOMPILED as KIND_DECOMPILED
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Artifact, Span, Trace
from tracers.vocabulary.durations import duration

from .artifact_html import artifacts_html
from .highlight import json_html, python_html, text_html
from .options import ARTIFACT_FLOOR_CHARS, ARTIFACT_KINDS
from .templating import safe
from .text import size, target_label

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


def _colouring(artifact: Artifact, text_is_metadata: bool) -> Callable[[str], str]:
    """How the artifact's text is coloured: as JSON, as Python, or plain."""
    if text_is_metadata:
        return json_html
    if artifact.kind in _PYTHON_KINDS or artifact.name == "fx_graph_runnable":  # a runnable repro: Python
        return python_html
    return json_html if artifact.metadata.get("encoding") == "json" else text_html


def _text(artifact: Artifact) -> tuple[str, bool]:
    """The text to show and whether it is the metadata (records such as shapes carry no payload)."""
    if artifact.payload:
        return artifact.payload, False
    metadata = {key: value for key, value in artifact.metadata.items() if key not in _HEAVY_METADATA}
    return (json.dumps(metadata, indent=1, default=str), True) if metadata else ("", False)


@dataclass(frozen=True)
class CodeBlock:
    """Coloured text (highlight.py's markup), cut at the page's share when longer."""

    html: Markup
    cut: str = ""  # "": whole; else the characters shown ...
    length: str = ""  # ... of this many


@dataclass(frozen=True)
class CodePair:
    """Dynamo's rewritten code: decompiled to Python (depyf) beside its bytecode listing."""

    decompiler: str | None  # None: not decompiled
    source: CodeBlock | None
    why: str  # why there is no Python (``source`` None)
    listing: CodeBlock


@dataclass(frozen=True)
class OpRow:
    """One op of Inductor's runtime estimate of a graph: its name, kind, estimated time and outputs."""

    name: str
    type: str
    estimate: str
    outputs: str


@dataclass(frozen=True)
class OpTable:
    rows: tuple[OpRow, ...]
    total: str  # the ops' estimates summed: the graph's


@dataclass(frozen=True)
class ArtifactView:
    id: str
    kind: str
    name: str
    during: str | None  # the span it was emitted in
    size: str
    code: CodeBlock | None = None
    against: str | None = None  # a recompile's newest guard failure, read
    pair: CodePair | None = None
    not_kept: bool = False  # recorded with --no-code
    table: OpTable | None = None  # Inductor's per-op runtime estimates, as a table above their JSON


@dataclass(frozen=True)
class CompileGroup:
    compile_id: str | None
    frame: str | None
    items: tuple[ArtifactView, ...]


def _code_block(text: str, colour: Callable[[str], str], max_chars: int) -> CodeBlock:
    if len(text) > max_chars:
        return CodeBlock(safe(colour(text[:max_chars])), f"{max_chars:,}", f"{len(text):,}")
    return CodeBlock(safe(colour(text)))


def _transformed_code(artifact: Artifact, max_chars: int) -> CodePair:
    meta = artifact.metadata
    listing = _code_block(meta.get("listing") or "", text_html, max_chars)
    if artifact.payload:
        return CodePair(meta.get("decompiler") or "decompiled", _code_block(artifact.payload, python_html, max_chars),
                        "", listing)
    why = (f"depyf could not decompile it: {meta['decompile_error']}" if meta.get("decompile_error")
           else "recorded without depyf: pip install depyf to see it as Python")
    return CodePair(None, None, why, listing)


def _artifact(artifact: Artifact, spans: dict[int, Span], max_chars: int,
              failures: Mapping[str, GuardFailure]) -> ArtifactView:
    text, is_metadata = _text(artifact)
    span = spans.get(artifact.span) if artifact.span is not None else None
    length = artifact.payload_size or len(text)
    # made once, with all its fields (a page of 1,000 compiles makes 14,000)
    shown = (artifact.id, artifact.kind, artifact.name, target_label(span.target) if span else None, size(length))
    if artifact.kind == KIND_DECOMPILED:
        return ArtifactView(*shown, pair=_transformed_code(artifact, max_chars))
    if text:
        table = _op_table(artifact.payload or "") if artifact.name == ESTIMATES else None
        reasons = artifact.metadata.get("reasons") if artifact.kind == "recompile" else None
        # torch lists every earlier version's failure: say the newest
        against = failures[reasons[0]].sentence if reasons and isinstance(reasons[0], str) else None
        return ArtifactView(*shown, code=_code_block(text, _colouring(artifact, is_metadata), max_chars),
                            against=against, table=table)
    return ArtifactView(*shown, not_kept=bool(artifact.payload_size))


ESTIMATES = "inductor_runtime_and_tensor_meta"  # per op: Inductor's estimated runtime and output metadata
SHAPES = "shapes"  # symbolic shapes and tensor descriptions: many small records a compile, shown as one ...
SHAPES_APART = 8  # ... past this many (a log describes each input tensor in three records)


def _op_table(payload: str) -> OpTable | None:
    """The ops of a runtime-estimate record (``{"ops": [{name, type, estimated_runtime_ns, outputs}]}``)."""
    try:
        ops = json.loads(payload).get("ops")
    except (ValueError, AttributeError):
        return None
    if not isinstance(ops, list):
        return None
    rows, total = [], 0.0
    for op in ops:
        if not isinstance(op, dict):
            continue
        ns = op.get("estimated_runtime_ns")
        number = float(ns) if isinstance(ns, (int, float)) and not isinstance(ns, bool) and 0 <= ns < 1e18 else None
        total += number or 0.0
        outputs = ", ".join(f"{out.get('dtype')}{out.get('shape')}" for out in op.get("outputs") or []
                            if isinstance(out, dict))
        rows.append(OpRow(str(op.get("name", "?")), str(op.get("type", "")),
                          duration(number) if number is not None else "?", outputs))
    return OpTable(tuple(rows), duration(total)) if rows else None


def _grouped_shapes(items: list[Artifact]) -> list[Artifact]:
    """A compile's shape records as one artifact where they are many (a line each: its name and fields), the others
    as they are; the rewritten bytecode torch logged left out where the decompiled view shows its listing already."""
    if any(artifact.kind == KIND_DECOMPILED for artifact in items):
        items = [artifact for artifact in items if not artifact.name.endswith("_MODIFIED_BYTECODE")]
    shapes = [artifact for artifact in items if artifact.kind == SHAPES]
    if len(shapes) <= SHAPES_APART:
        return items
    lines = "\n".join(f"{a.name}: " + json.dumps({k: v for k, v in a.metadata.items() if k not in _HEAVY_METADATA},
                                                 default=str, separators=(", ", ": ")) for a in shapes)
    one = replace(shapes[0], name=f"{len(shapes)} shape records", payload=lines, payload_size=len(lines), metadata={})
    return [one if artifact is shapes[0] else artifact for artifact in items if artifact.kind != SHAPES or
            artifact is shapes[0]]


def artifact_pieces(artifacts: list[Artifact], spans: list[Span], facts: TraceFacts, max_chars: int,
                    max_total_chars: int | None, failures: Mapping[str, GuardFailure]) -> Iterator[Markup]:
    """``failures``: each recompile record's newest guard failure, read (the report model's). One compile: its
    artifacts are the point, shown open; many: a list of compiles first (artifact_html.py). Each compile's
    views are made (and their text coloured) when the page reaches it, so a page of thousands of compiles is
    written without holding them all."""
    if not artifacts:
        return artifacts_html((), 0)
    groups: dict[str | None, list[Artifact]] = defaultdict(list)
    for artifact in artifacts:
        groups[artifact.compile_id].append(artifact)
    groups = defaultdict(list, {compile_id: _grouped_shapes(items) for compile_id, items in groups.items()})
    shown = sum(len(items) for items in groups.values())
    if max_total_chars is not None:  # an equal share each, so one huge graph cannot crowd the others out
        max_chars = max(ARTIFACT_FLOOR_CHARS, min(max_chars, max_total_chars // shown))
    by_span = {span.id: span for span in spans}
    frames = {compile_facts.compile_id: compile_facts.frame for compile_facts in facts.compiles}
    views = (CompileGroup(compile_id, frames.get(compile_id) if compile_id else None,
                          tuple(_artifact(artifact, by_span, max_chars, failures) for artifact in items))
             for compile_id, items in sorted(groups.items(), key=lambda group: sort_key(group[0])))
    return artifacts_html(views, len(groups))
