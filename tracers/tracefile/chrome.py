"""The one trace file format: Chrome Trace Event JSON (Perfetto, viztracer) plus our metadata and artifacts."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from .atomic import write_text_atomic
from .events import FORMAT_VERSION, Artifact, DeepEvent, RunInfo, Span, Trace
from .scrub import scrub

TOOL_KEY = "torch_compile_walkthrough"  # marks files written by this tool
DEEP_CATEGORY = "python"  # deep-mode function calls, kept apart from the stage spans


class TraceFileError(Exception):
    """A trace file that cannot be read: missing, corrupt, from another tool or a newer format."""


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
        args = {key: value for key, value in dataclasses.asdict(span).items()
                if key not in ("start_ns", "end_ns", "thread_name") and value is not None and value is not False}
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
        "artifacts": [dataclasses.asdict(artifact) for artifact in trace.artifacts],
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


def load(path: Path) -> Trace:
    """Read a trace this tool wrote; raises TraceFileError with a one-line reason otherwise."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TraceFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TraceFileError(f"{path}: is a directory, not a trace file") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise TraceFileError(f"{path}: not valid JSON (truncated or corrupt?): {error}") from None
    return from_chrome(raw, str(path))


def from_chrome(raw: Any, path: str) -> Trace:
    """A trace from the JSON ``to_chrome`` made (``path`` names it in errors); raises TraceFileError."""
    info = raw.get("otherData", {}).get(TOOL_KEY) if isinstance(raw, dict) else None
    if not isinstance(info, dict):
        raise TraceFileError(f"{path}: not a trace written by this tool (no {TOOL_KEY} metadata)")
    version = info.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise TraceFileError(
            f"{path}: trace format {version} is newer than this tool reads ({FORMAT_VERSION}); upgrade the tool"
        )
    try:
        origin = raw["otherData"].get("origin_ns", 0)
        spans = [_span(event, origin) for event in raw["traceEvents"]
                 if event.get("ph") == "X" and event.get("cat") != DEEP_CATEGORY]
        deep_events = [DeepEvent(event["name"], event["tid"], origin + round(event["ts"] * 1000),
                                 round(event["dur"] * 1000))
                       for event in raw["traceEvents"] if event.get("cat") == DEEP_CATEGORY]
        thread_names = {e["tid"]: e["args"]["name"] for e in raw["traceEvents"]
                        if e.get("ph") == "M" and e.get("name") == "thread_name"}
        for span in spans:
            span.thread_name = thread_names.get(span.thread_id, str(span.thread_id))
        artifacts = [Artifact(**item) for item in raw.get("artifacts", [])]
        run_info = RunInfo(**{f.name: info[f.name] for f in dataclasses.fields(RunInfo) if f.name in info})
        executed_lines = {path: {int(line): count for line, count in lines.items()}
                          for path, lines in raw.get("executed_lines", {}).items()}
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise TraceFileError(f"{path}: trace file is damaged ({type(error).__name__}: {error})") from None
    return Trace(run_info, spans, artifacts, deep_events, executed_lines)


def _span(event: dict[str, Any], origin: int) -> Span:
    args = event["args"]
    start = origin + round(event["ts"] * 1000)
    fields = {f.name for f in dataclasses.fields(Span)}
    values = {key: value for key, value in args.items() if key in fields}
    return Span(**{"parent": None, "compile_id": None, "frame": None, "error": None, **values,
                   "thread_name": "", "start_ns": start, "end_ns": start + round(event["dur"] * 1000)})
