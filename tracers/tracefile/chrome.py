"""The one trace file format: Chrome Trace Event JSON (Perfetto, viztracer) plus our metadata and artifacts."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from tracers.vocabulary.reading import ReadError, read_text

from . import validation
from .atomic import write_text_atomic
from .validation import Dropped
from .events import FORMAT_VERSION, Artifact, Span, Trace
from .scrub import scrub

TOOL_KEY = "torch_compile_walkthrough"  # marks files written by this tool
DEEP_CATEGORY = "python"  # deep-mode function calls, kept apart from the stage spans


class TraceFileError(Exception):
    """A trace file that cannot be read: missing, corrupt, from another tool or a newer format."""


# A span's fields that go into its event's args, in field order (its times and thread name are the event's own).
_SPAN_ARGS = tuple(field.name for field in dataclasses.fields(Span) if field.name not in ("start_ns", "end_ns", "thread_name"))
_ARTIFACT_FIELDS = tuple(field.name for field in dataclasses.fields(Artifact))
_ATOMIC = frozenset({str, int, float, bool, type(None)})


# dataclasses.asdict deep-copies every str and int of every span and artifact: a quarter of writing a large merged
# trace. The same copy, with the values that need none returned as they are.
def _plain(value: Any) -> Any:
    """``value`` as dataclasses.asdict copies a field's value."""
    kind = type(value)
    if kind in _ATOMIC:
        return value  # deepcopy returns these as they are
    if kind is dict:
        return {_plain(key): _plain(item) for key, item in value.items()}
    if kind is list:
        return [_plain(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return kind(*[_plain(item) for item in value])
    if isinstance(value, (list, tuple)):
        return kind(_plain(item) for item in value)
    if isinstance(value, dict):
        return kind((_plain(key), _plain(item)) for key, item in value.items())
    return copy.deepcopy(value)


def to_chrome(trace: Trace) -> dict[str, Any]:
    pid = os.getpid()
    origin = min([s.start_ns for s in trace.spans] + [a.ts_ns for a in trace.artifacts]
                 + [d.start_ns for d in trace.deep_events], default=0)

    def us(ns: int) -> float:
        return round((ns - origin) / 1000, 3)

    events: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "torch.compile"}},
    ]
    for tid, name in sorted({(s.thread_id, s.thread_name) for s in trace.spans}):
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
    for span in trace.spans:
        args = {key: _plain(value) for key in _SPAN_ARGS
                for value in (getattr(span, key),) if value is not None and value is not False}
        events.append({
            "name": span.target.split(":", 1)[1], "cat": span.stage, "ph": "X",
            "ts": us(span.start_ns), "dur": round(span.duration_ns / 1000, 3),
            "pid": pid, "tid": span.thread_id, "args": args,
        })
    for artifact in trace.artifacts:
        events.append({
            "name": artifact.name, "cat": f"artifact.{artifact.kind}", "ph": "i", "s": "t",
            "ts": us(artifact.ts_ns), "pid": pid, "tid": artifact.thread_id,
            "args": {"artifact": artifact.id, "compile_id": artifact.compile_id, "span": artifact.span},
        })
    if trace.deep_events:
        # A second process track keeps torch.compile's stages readable above the function calls.
        deep_pid = pid + 1
        minimum = trace.info.deep_min_duration_us
        events.append({"ph": "M", "name": "process_name", "pid": deep_pid, "tid": 0,
                       "args": {"name": f"Python functions (viztracer, calls ≥ {minimum:g} µs)"}})
        for deep in trace.deep_events:
            events.append({"name": deep.name, "cat": DEEP_CATEGORY, "ph": "X", "ts": us(deep.start_ns),
                           "dur": round(deep.duration_ns / 1000, 3), "pid": deep_pid, "tid": deep.thread_id})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {TOOL_KEY: dataclasses.asdict(trace.info), "origin_ns": origin},
        "artifacts": [{key: _plain(getattr(artifact, key)) for key in _ARTIFACT_FIELDS} for artifact in trace.artifacts],
        "executed_lines": {path: {str(line): count for line, count in lines.items()}
                           for path, lines in trace.executed_lines.items()},
    }


def write_atomic(trace: Trace, path: Path, keep_paths: bool = False) -> Path:
    """Write to a temporary file beside ``path`` and rename it, so readers never see half a file.

    Unless ``keep_paths``, this machine's path prefixes become placeholders (tracers/tracefile/scrub.py), so a
    trace can be shared or committed without them."""
    data = json.dumps(to_chrome(trace), separators=(",", ":"), default=str)
    if not keep_paths:
        data = scrub(data)
    return write_text_atomic(path, data)


def load(path: Path, dropped: Dropped | None = None) -> Trace:
    """Read a trace this tool wrote; raises TraceFileError with a one-line reason otherwise. What the file holds
    that cannot be used (a bad time, a cycle of parent links, a field of the wrong type) is left out and counted
    in ``dropped``."""
    return from_chrome(parse_json(Path(path), "trace file"), str(path), dropped)


def parse_json(path: Path, what: str) -> Any:
    """A JSON input file parsed whole (a regular file, of bounded size); raises TraceFileError saying why not."""
    try:
        return json.loads(read_text(path, what=what))
    except ReadError as error:
        raise TraceFileError(str(error)) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise TraceFileError(f"{path}: not valid JSON (truncated or corrupt?): {error}") from None
    except RecursionError:
        raise TraceFileError(f"{path}: not a {what} this tool reads: its JSON nests deeper than Python parses") from None


def from_chrome(raw: Any, path: str, dropped: Dropped | None = None) -> Trace:
    """A trace from the JSON ``to_chrome`` made (``path`` names it in errors); raises TraceFileError when it is
    not one, and leaves out (counting in ``dropped``) what cannot be used (tracefile/validation.py)."""
    dropped = Dropped() if dropped is None else dropped
    other = raw.get("otherData") if isinstance(raw, dict) else None
    info = other.get(TOOL_KEY) if isinstance(other, dict) else None
    if not isinstance(info, dict):
        raise TraceFileError(f"{path}: not a trace written by this tool (no {TOOL_KEY} metadata)")
    version = info.get("format_version")
    if not validation.is_int(version) or version < 1:
        raise TraceFileError(f"{path}: trace format {version!r} is not a format version (a whole number)")
    if version > FORMAT_VERSION:
        raise TraceFileError(
            f"{path}: trace format {version} is newer than this tool reads ({FORMAT_VERSION}); upgrade the tool"
        )
    events = raw.get("traceEvents")
    if not isinstance(events, list):
        raise TraceFileError(f"{path}: trace file is damaged (no list of traceEvents)")
    origin = validation.origin_of(other, dropped)
    events = [event for event in events if isinstance(event, dict)]
    spans = [span for event in events if event.get("ph") == "X" and event.get("cat") != DEEP_CATEGORY
             for span in (validation.span(event, origin, dropped),) if span is not None]
    spans = validation.tree(spans, dropped)
    deep_events = [deep for event in events if event.get("cat") == DEEP_CATEGORY
                   for deep in (validation.deep_event(event, origin, dropped),) if deep is not None]
    thread_names = {event.get("tid"): event["args"]["name"] for event in events
                    if event.get("ph") == "M" and event.get("name") == "thread_name"
                    and isinstance(event.get("args"), dict) and isinstance(event["args"].get("name"), str)}
    for span in spans:
        span.thread_name = thread_names.get(span.thread_id, str(span.thread_id))
    items = raw.get("artifacts", [])
    artifacts = [artifact for item in (items if isinstance(items, list) else [])
                 for artifact in (validation.artifact(item, origin, dropped),) if artifact is not None]
    run_info = validation.run_info(info, dropped)
    executed_lines = validation.executed_lines(raw.get("executed_lines", {}), dropped)
    return Trace(run_info, spans, artifacts, deep_events, executed_lines)
