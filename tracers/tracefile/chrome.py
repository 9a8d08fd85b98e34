"""The one trace file format: Chrome Trace Event JSON (Perfetto, viztracer) plus our metadata and artifacts."""

from __future__ import annotations

import copy
import dataclasses
import json
import operator
import os
import re
from pathlib import Path
from typing import Any

from tracers.vocabulary.printable import printable_value
from tracers.vocabulary.reading import ReadError, read_bounded

from . import validation
from .atomic import write_text_atomic
from .validation import Dropped
from .events import FORMAT_VERSION, Artifact, Span, Trace
from .scrub import scrub

TOOL_KEY = "torch_compile_walkthrough"  # marks files written by this tool
DEEP_CATEGORY = "python"  # deep-mode function calls, kept apart from the stage spans


class TraceFileError(Exception):
    """A trace file that cannot be read: missing, corrupt, from another tool or a newer format (one line, printable
    on a terminal whatever the file holds)."""

    def __init__(self, message: str):
        super().__init__(printable_value(message))


# A span's fields that go into its event's args, in field order (its times and thread name are the event's own).
_SPAN_ARGS = tuple(field.name for field in dataclasses.fields(Span) if field.name not in ("start_ns", "end_ns", "thread_name"))
_span_values = operator.attrgetter(*_SPAN_ARGS)  # one call for all eleven: a log of 650,000 regions writes as many
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


def to_chrome(trace: Trace, pid: int | None = None) -> dict[str, Any]:
    """The trace as Chrome Trace Events, its process ``pid`` (default: this one's, the process that recorded it)."""
    pid = os.getpid() if pid is None else pid
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
        args = {key: value if type(value) in _ATOMIC else _plain(value)
                for key, value in zip(_SPAN_ARGS, _span_values(span)) if value is not None and value is not False}
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


def write_atomic(trace: Trace, path: Path, keep_paths: bool = False, pid: int | None = None) -> Path:
    """Write to a temporary file beside ``path`` and rename it, so readers never see half a file.

    Unless ``keep_paths``, this machine's path prefixes become placeholders (tracers/tracefile/scrub.py), so a
    trace can be shared or committed without them."""
    return write_text_atomic(path, serialized(trace, keep_paths, pid))


def serialized(trace: Trace, keep_paths: bool = False, pid: int | None = None) -> str:
    """The trace file's text (write_atomic's): JSON in ASCII, this machine's paths scrubbed unless ``keep_paths``."""
    data = json.dumps(to_chrome(trace, pid), separators=(",", ":"), default=str)
    return data if keep_paths else scrub(data)


def read_back(text: str, path: Path) -> Trace:
    """What :func:`load` reads from ``path``, just written with ``text`` (:func:`serialized`'s), made from the text.

    The trace in memory is not that one (the file's paths are scrubbed, its fields checked as any file's are), but
    reading the file back from disk is not needed: 24 MB of a 1,000-compile log's trace, read and decoded again."""
    return from_chrome(parse_text(text, path, "trace file"), str(path))


def load(path: Path, dropped: Dropped | None = None) -> Trace:
    """Read a trace this tool wrote; raises TraceFileError with a one-line reason otherwise. What the file holds
    that cannot be used (a bad time, a cycle of parent links, a field of the wrong type) is left out and counted
    in ``dropped``."""
    return from_chrome(parse_json(Path(path), "trace file"), str(path), dropped)


def parse_json(path: Path, what: str) -> Any:
    """A JSON input file parsed whole (a regular file, of bounded size, of no more lists and objects than a trace
    holds); its strings valid Unicode (bytes that are no UTF-8, and escaped lone surrogates, replaced by U+FFFD).
    Raises TraceFileError saying why not."""
    try:
        data = read_bounded(path, what=what)
    except ReadError as error:
        raise TraceFileError(str(error)) from None
    _check_structure(path, data, what)
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    del data
    return parse_text(text, path, what)


def parse_text(text: str, path: Path, what: str) -> Any:
    """JSON text parsed as :func:`parse_json` parses a file's (``path`` names it in errors)."""
    text = validation.without_lone_surrogates(text)
    try:
        try:
            return json.loads(text)
        except ValueError as error:
            if "integer string conversion" not in str(error):
                raise
            # a number of thousands of digits (past what Python converts): read as infinite, and so left out by
            # the validator as any number out of range is, instead of refusing the whole file
            return json.loads(_LONG_NUMBER.sub("1e999", text))
    except ValueError as error:
        raise TraceFileError(f"{path}: not valid JSON (truncated or corrupt?): {error}") from None
    except RecursionError:
        raise TraceFileError(f"{path}: not a {what} this tool reads: its JSON nests deeper than Python parses") from None
    except MemoryError:
        raise TraceFileError(f"{path}: not a {what} this tool reads: parsing it takes more memory than there is") \
            from None


# Each list or object parsed costs Python 60-100 bytes however little it holds: 100 MB of ``[],`` would take 3 GB.
# A real trace has one per 150 bytes or more (spans, artifacts, their args); one per 32 is far more than any has.
MIN_BYTES_PER_CONTAINER = 32
FREE_CONTAINERS = 1_000_000  # a file this small in lists and objects is parsed whatever its size
# a number past what Python converts (outside strings in practice: no string holds a thousand digits alone)
_LONG_NUMBER = re.compile(r"(?<![\w.])-?[0-9]{1000,}(?![\w.])")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _check_structure(path: Path, data: bytes, what: str) -> None:
    """Refuse, before parsing, JSON holding more lists and objects than a trace of its size does (counted outside
    its strings, where a payload's code holds brackets of its own)."""
    allowed = max(FREE_CONTAINERS, len(data) // MIN_BYTES_PER_CONTAINER)
    if data.count(b"[") + data.count(b"{") <= allowed:  # the usual case, at memchr speed
        return
    outside = _JSON_STRING.sub(b"", data)
    containers = outside.count(b"[") + outside.count(b"{")
    if containers > allowed:
        raise TraceFileError(f"{path}: not a {what} this tool reads: {containers:,} JSON lists and objects in "
                             f"{len(data):,} bytes (a trace has at most one per {MIN_BYTES_PER_CONTAINER} bytes); "
                             "refused before parsing, which would take gigabytes")


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
    thread_names = {event["tid"]: event["args"]["name"] for event in events
                    if event.get("ph") == "M" and event.get("name") == "thread_name"
                    and validation.is_int(event.get("tid"))  # a list there is no key
                    and isinstance(event.get("args"), dict) and isinstance(event["args"].get("name"), str)}
    for span in spans:
        span.thread_name = thread_names.get(span.thread_id, str(span.thread_id))
    items = raw.get("artifacts", [])
    artifacts = [artifact for item in (items if isinstance(items, list) else [])
                 for artifact in (validation.artifact(item, origin, dropped),) if artifact is not None]
    run_info = validation.run_info(info, dropped)
    executed_lines = validation.executed_lines(raw.get("executed_lines", {}), dropped)
    return Trace(run_info, spans, artifacts, deep_events, executed_lines)
