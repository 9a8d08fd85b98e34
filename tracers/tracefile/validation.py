"""A trace file's contents checked as they are read: types, finite times in the run's range, parent links without
cycles, nesting depth; what fails is counted and left out, so a damaged or hostile file never raises or hangs."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from typing import Any

from . import compile_identity
from .events import MAX_NESTING, MAX_RANKS, Artifact, DeepEvent, RunInfo, Span

# A span, artifact or call more than this after the trace's first moment is not of this run (a compile job of a
# year is not one trace): a flipped digit or an edited number, left out.
MAX_RUN_US = 400 * 86_400 * 1_000_000
MAX_ORIGIN_NS = 1 << 62  # the clock the spans were taken with, in ns: anything beyond is not a clock reading
MAX_LINE = 10_000_000  # a line number in a source file
MAX_METADATA_DEPTH = 32  # JSON nesting kept in an artifact's metadata (torch's records are 3 or 4 deep)
# Whole numbers beyond 64 bits are no id, count, size or clock reading of a real run: one of thousands of digits
# would overflow where it is turned into a float (a size in MB) or formatted.
MIN_INT, MAX_INT = -(1 << 63), 1 << 64
MAX_PAYLOAD_SIZE = 1 << 50  # bytes torch produced for one artifact: a PB is no payload


class Dropped(Counter):
    """What was left out while reading, by what it was: ``spans with a bad time`` -> how many."""

    def describe(self) -> str:
        return ", ".join(f"{count} {what}" for what, count in sorted(self.items()))


def is_int(value: Any) -> bool:
    """A whole number (not a bool) within 64 bits."""
    return isinstance(value, int) and not isinstance(value, bool) and MIN_INT <= value < MAX_INT


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool, not NaN or ±inf)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and (isinstance(value, int) or math.isfinite(value)))


def _time_us(value: Any, low: float = -1_000.0) -> bool:
    """A time in µs from the trace's origin that lies in the run (a rounding's worth before its start allowed)."""
    return is_number(value) and low <= value <= MAX_RUN_US


def depth_within(value: Any, limit: int = MAX_METADATA_DEPTH) -> bool:
    """Whether JSON-shaped ``value`` nests no deeper than ``limit`` (walked without recursion)."""
    # a level at a time, its containers alone: most metadata is one flat dict (every artifact is checked, twice
    # when a log is reported: read, then its trace file read back)
    level, depth = ([value] if isinstance(value, (dict, list)) else []), 1
    while level:
        if depth > limit:
            return False
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, (dict, list))]
        depth += 1
    return True


def origin_of(other: dict[str, Any], dropped: Dropped) -> int:
    origin = other.get("origin_ns", 0)
    if is_int(origin) and abs(origin) <= MAX_ORIGIN_NS:
        return origin
    dropped["bad clock origins (read as 0)"] += 1
    return 0


_OPTIONAL_TEXT = ("frame", "error", "skip_reason")


def span(event: dict[str, Any], origin: int, dropped: Dropped) -> Span | None:
    """A span from its ``X`` event, or None (counted) when a field it needs is missing, of the wrong type or out of
    the run's range; a wrong optional field is dropped alone."""
    args = event.get("args")
    ts, dur = event.get("ts"), event.get("dur")
    if not isinstance(args, dict):
        dropped["spans without their fields"] += 1
        return None
    if not _time_us(ts) or not _time_us(dur, 0.0):
        dropped["spans with a time not finite or outside the run"] += 1
        return None
    get = args.get
    span_id, target, stage, thread_id, depth = get("id"), get("target"), get("stage"), get("thread_id"), get("depth")
    if not (is_int(span_id) and isinstance(target, str) and ":" in target and isinstance(stage, str)
            and is_int(thread_id) and is_int(depth) and 0 <= depth <= MAX_NESTING):
        dropped["spans without their fields"] += 1
        return None
    parent, compile_id, unfinished = get("parent"), get("compile_id"), get("unfinished", False)
    if parent is not None and not is_int(parent):
        parent = None
        dropped["span fields of the wrong type"] += 1
    if compile_id is not None and not compile_identity.plausible(compile_id):
        compile_id = None
        dropped["span fields of the wrong type"] += 1
    frame, error, skip_reason = (_optional_text(get(key), dropped) for key in _OPTIONAL_TEXT)
    start = origin + round(ts * 1000)
    return Span(span_id, parent, target, stage, thread_id, "", depth, start, start + round(dur * 1000), compile_id,
                frame, error, unfinished if isinstance(unfinished, bool) else bool(unfinished), skip_reason)


def _optional_text(value: Any, dropped: Dropped) -> str | None:
    """An optional text field of a span, or None (counted) when it is there but not text."""
    if value is not None and not isinstance(value, str):
        dropped["span fields of the wrong type"] += 1
        return None
    return value


def deep_event(event: dict[str, Any], origin: int, dropped: Dropped) -> DeepEvent | None:
    ts, dur = event.get("ts"), event.get("dur")
    if not (isinstance(event.get("name"), str) and is_int(event.get("tid")) and _time_us(ts) and _time_us(dur, 0.0)):
        dropped["Python calls with a bad field"] += 1
        return None
    return DeepEvent(event["name"], event["tid"], origin + round(ts * 1000), round(dur * 1000))


def tree(spans: list[Span], dropped: Dropped) -> list[Span]:
    """The spans with unique ids and parent links that end at a root within ``MAX_NESTING``: a later span of an id
    seen already is left out, a link that closes a cycle or nests too deep is cut (the span becomes a root)."""
    by_id: dict[int, Span] = {}
    for item in spans:
        if item.id in by_id:
            dropped["spans of an id seen already"] += 1
        else:
            by_id[item.id] = item
    depth_of: dict[int, int] = {}  # spans whose chain to a root is walked already: their depth
    for item in by_id.values():
        chain: list[Span] = []
        on_chain: set[int] = set()
        node, base = item, -1
        while True:  # up the parent links until a root, a span walked already, or a span of this chain again
            if node.id in depth_of:
                base = depth_of[node.id]
                break
            if node.id in on_chain:
                chain[-1].parent = None  # the link that closes the cycle
                dropped["parent links cut (a cycle, or nested too deep)"] += 1
                break
            on_chain.add(node.id)
            chain.append(node)
            parent = by_id.get(node.parent) if node.parent is not None else None
            if parent is None:
                break
            node = parent
        for link in reversed(chain):
            base += 1
            if base > MAX_NESTING:
                link.parent, base = None, 0
                dropped["parent links cut (a cycle, or nested too deep)"] += 1
            depth_of[link.id] = base
    return list(by_id.values())


_ARTIFACT_FIELDS = {f.name for f in dataclasses.fields(Artifact)}


def artifact(item: Any, origin: int, dropped: Dropped) -> Artifact | None:
    """An artifact from its JSON, or None (counted) when a field is missing or wrong."""
    if not isinstance(item, dict):
        dropped["artifacts with a bad field"] += 1
        return None
    values = {key: value for key, value in item.items() if key in _ARTIFACT_FIELDS}
    ok = (is_int(values.get("id")) and isinstance(values.get("kind"), str) and isinstance(values.get("name"), str)
          and (values.get("compile_id") is None or compile_identity.plausible(values["compile_id"])) and (values.get("span") is None or is_int(values["span"]))
          and is_int(values.get("thread_id")) and is_int(values.get("ts_ns"))
          and abs(values["ts_ns"] - origin) <= MAX_RUN_US * 1000
          and isinstance(values.setdefault("metadata", {}), dict) and depth_within(values["metadata"])
          and isinstance(values.setdefault("payload", None), (str, type(None)))
          and is_int(values.setdefault("payload_size", 0)) and 0 <= values["payload_size"] <= MAX_PAYLOAD_SIZE)
    if not ok:
        dropped["artifacts with a bad field"] += 1
        return None
    values["metadata"], bad = artifact_details(values["metadata"])
    if bad:
        dropped["artifact details of the wrong type (left out)"] += bad
    return Artifact(**values)


def artifact_details(metadata: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """An artifact's metadata less its known keys of the wrong shape, and how many went: the one check for every
    artifact, read from a trace file or made from a TORCH_TRACE log's records (torchlogs/convert.py)."""
    return _record_fields(metadata, _METADATA_SHAPES)


def executed_lines(raw: Any, dropped: Dropped) -> dict[str, dict[int, int]]:
    lines: dict[str, dict[int, int]] = {}
    if not isinstance(raw, dict):
        dropped["executed-line tables of the wrong type"] += 1
        return lines
    for path, counts in raw.items():
        if not isinstance(counts, dict):
            dropped["executed-line entries with a bad field"] += 1
            continue
        kept = {}
        for line, count in counts.items():
            if str(line).isascii() and str(line).isdigit() and len(str(line)) <= 8 and 0 < int(line) <= MAX_LINE \
                    and is_int(count) and count >= 0:
                kept[int(line)] = count
            else:
                dropped["executed-line entries with a bad field"] += 1
        lines[path] = kept
    return lines


def _accepts(annotation: str, value: Any) -> bool:
    """Whether ``value`` fits a RunInfo field's annotation (its outer type, and str/int items of lists and dicts)."""
    options = [part.strip() for part in annotation.split("|")]
    if value is None:
        return "None" in options
    for option in options:
        head, _, inner = option.partition("[")
        if head == "str" and isinstance(value, str) or head == "bool" and isinstance(value, bool):
            return True
        if head == "int" and is_int(value) or head == "float" and is_number(value):
            return True
        if head == "list" and isinstance(value, list):
            return inner != "str]" or all(isinstance(item, str) for item in value)
        if head == "dict" and isinstance(value, dict) and all(isinstance(key, str) for key in value):
            item_type = inner.rstrip("]").split(",")[-1].strip()
            if item_type == "int":
                return all(is_int(item) and item >= 0 for item in value.values())
            if item_type == "str":
                return all(isinstance(item, str) for item in value.values())
            return depth_within(value)
    return False


_INFO_FIELDS = dataclasses.fields(RunInfo)
_UNKNOWN = {"str": "unknown", "int": 0, "list[str]": []}


def _source_span(value: Any) -> bool:
    """``[path, first line, last line]`` of a hooked function: a path relative to torch's folder, lines in order."""
    if not (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and is_int(value[1]) and is_int(value[2]) and 0 < value[1] <= value[2] <= MAX_LINE):
        return False
    parts = value[0].replace("\\", "/").split("/")
    return not value[0].startswith("/") and ".." not in parts and ":" not in value[0]


def run_info(info: dict[str, Any], dropped: Dropped) -> RunInfo:
    """The run's metadata, each field of the type RunInfo declares; a wrong one takes its default (or ``unknown``)."""
    values: dict[str, Any] = {}
    for field in _INFO_FIELDS:
        if field.name not in info:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                values[field.name] = _UNKNOWN.get(str(field.type), "unknown")
                dropped["run facts missing or of the wrong type"] += 1
            continue
        value = info[field.name]
        if _accepts(str(field.type), value):
            values[field.name] = value
        else:
            dropped["run facts missing or of the wrong type"] += 1
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                values[field.name] = _UNKNOWN.get(str(field.type), "unknown")
    sources = values.get("target_sources") or {}
    if any(not _source_span(value) for value in sources.values()):
        values["target_sources"] = {key: value for key, value in sources.items() if _source_span(value)}
        dropped["source places of hooked functions with a bad field"] += len(sources) - len(values["target_sources"])
    rank = values.get("rank")
    if rank is not None and not _rank_facts(rank):
        values["rank"] = None
        dropped["rank facts out of range"] += 1
    clock = values.get("clock")
    if clock is not None and not all(is_int(item) and abs(item) <= MAX_ORIGIN_NS for item in clock.values()):
        values["clock"] = None
        dropped["run facts missing or of the wrong type"] += 1
    for name, shape in _INFO_SHAPES.items():  # inside the dicts: each key of the type its readers use
        if isinstance(values.get(name), dict):
            values[name], bad = _record_fields(values[name], shape)
            if bad:
                dropped["run facts missing or of the wrong type"] += bad
    if values.get("runtime") is not None and not fits(values["runtime"], SPEED_RECORD):
        values["runtime"] = None
        dropped["speed records with a bad field (left out)"] += 1
    return RunInfo(**values)


# -- shapes: the types readers use inside the run facts' dicts (a small schema, checked before any analysis) --------
# A shape is "str", "int", "num", "bool" or "any"; ("opt", shape) also allows None; ("either", shape, shape) one of
# them (``inputs``: an autotuned op's input list, a CUDA-graph recording's input count); ("list", shape) a list of them;
# ("map", shape) a dict of str keys to them; ("rec", {key: shape}, required keys, closed) a dict whose known keys
# have their shapes (a closed one has no other key: read with ``cls(**item)``).
def _rec(fields: dict[str, Any], required: tuple[str, ...] = (), closed: bool = False) -> tuple:
    return ("rec", fields, frozenset(required), closed)


_TIMED_FUNCTION = _rec({"site": "str", "order": "int", "name": "str", "host_ns": ("list", "int"),
                        "device_ns": ("opt", ("list", "int")), "compiling": ("list", "int"),
                        "compile_ids": ("list", "str"), "profiled": ("list", "int"),
                        "backward_host_ns": ("list", "int"), "backward_device_ns": ("opt", ("list", "int")),
                        "step_host_ns": ("list", "int"), "step_device_ns": ("opt", ("list", "int"))},
                       ("site", "order", "host_ns"))
_TIMED_RUN = _rec({"mode": "str", "functions": ("list", _TIMED_FUNCTION), "timer": "str", "status": "str",
                   "exit_code": ("opt", "int"), "note": ("opt", "str")}, ("mode",))
_KERNEL_TIME = _rec({"name": "str", "compile_id": ("opt", "str"), "count": "int", "total_ns": "int", "side": "str",
                     "phase": "str"},
                    ("name", "compile_id", "count", "total_ns"), closed=True)
_PROFILED = _rec({"site": "str", "order": "int", "calls": "int", "call_ns": "int", "graph_ns": "int",
                  "graph_calls": "int", "kernels": ("list", _KERNEL_TIME), "cudagraph_replays": ("map", "int"),
                  "activities": ("list", "str"), "backward_ns": "int", "backward_calls": "int",
                  "backward_graph_ns": "int", "window_ns": "int", "streams": "int"}, ("site", "order", "calls", "call_ns"))
SPEED_RECORD = _rec({"compiled": _TIMED_RUN, "eager": ("opt", _TIMED_RUN), "profiles": ("list", _PROFILED),
                     "profile_note": ("opt", "str")})
# An artifact's metadata, by key, as the analyses and views read it (analysis/trace_facts.py, breaks.py, kernels.py,
# waste.py, terminal/summary.py): a key of another shape is left out alone, the artifact kept.
_USER_FRAME = _rec({"filename": "str", "line": "int"}, ("filename", "line"))
_METADATA_SHAPES: dict[str, Any] = {
    "frames": ("map", ("tuple", ("str", "int", "str", "str"))), "nodes": ("list", "str"), "ops": ("list", "str"),
    "stacks": ("list", ("list", "scalar")), "codegen_spans": ("list", "int"), "kernel": "str",
    "location": "str", "title": ("opt", "str"), "explanation": ("opt", "str"), "reason": "str",
    "reasons": ("list", "str"), "graph_op_count": ("opt", "int"), "guard_count": ("opt", "int"),
    "fail_reason": ("opt", "str"), "fail_type": ("opt", "str"), "fail_user_frame_filename": ("opt", "str"),
    "fail_user_frame_lineno": ("opt", "int"), "restart_reasons": ("opt", ("list", "str")),
    "dynamo_time_before_restart_s": ("opt", "num"), "attempt": "int", "user_frame": ("opt", _USER_FRAME),
    "callers": ("list", "any"), "line": ("opt", "int"), "co_name": ("opt", "str"), "co_filename": ("opt", "str"),
    "co_firstlineno": ("opt", "int"), "duration_us": ("opt", "num"), "start_time_us": ("opt", "num"),
    "end_time_us": ("opt", "num"), "entire_frame_compile_time_s": ("opt", "num"),
    "choices": ("list", _rec({"name": "str", "ms": ("opt", "num")}, ("name",))), "inputs": ("either", ("list", "str"), "int"),
    "op": "str",
}
_INFO_SHAPES: dict[str, dict[str, Any]] = {
    # torchlogs/convert.py writes it, load.py its reading_notes; the summary, the pages and the ranks' report read it
    "from_log": {"file": "str", "written_by": "str", "cannot_give": ("list", "str"),
                 "missing_record_kinds": ("list", "str"), "problems": ("map", "int"), "records": "int",
                 "pid": ("opt", "int"), "export": ("map", "any"), "reading_notes": ("list", "str")},
    # analysis/totals.py: TotalsCheck.as_json()
    "totals_check": {"tracer": ("map", "int"), "torch": ("map", "int"), "mismatches": ("list", "str"),
                     "skipped": ("opt", "str")},
    # capture/child_process.py
    "process": {"pid": "int", "parent_pid": ("opt", "int"), "run_id": ("opt", "str"), "spawn_index": ("opt", "int")},
    # capture/launcher facts (the rank and world size are checked by _rank_facts)
    "rank": {"local_rank": ("opt", "int"), "local_world_size": ("opt", "int"), "host": ("opt", "str"),
             "launcher": ("opt", "str"), "backend": ("opt", "str"), "run_id": ("opt", "str")},
}


def fits(value: Any, shape: Any, depth: int = 0) -> bool:
    """Whether JSON ``value`` has ``shape`` (above), nesting no deeper than MAX_METADATA_DEPTH."""
    if depth > MAX_METADATA_DEPTH:
        return False
    if isinstance(shape, str):
        if shape == "str":
            return isinstance(value, str)
        if shape == "int":
            return is_int(value)
        if shape == "num":
            return is_number(value) and (isinstance(value, float) or is_int(value))
        if shape == "scalar":
            return value is None or isinstance(value, (str, bool)) or fits(value, "num")
        if shape == "bool":
            return isinstance(value, bool)
        return depth_within(value, MAX_METADATA_DEPTH - depth)  # "any"
    kind = shape[0]
    if kind == "tuple":  # a list of fixed length, each item its own shape
        return isinstance(value, list) and len(value) == len(shape[1]) and all(
            fits(item, part, depth + 1) for item, part in zip(value, shape[1]))
    if kind == "opt":
        return value is None or fits(value, shape[1], depth)
    if kind == "either":
        return any(fits(value, part, depth) for part in shape[1:])
    if kind == "list":
        return isinstance(value, list) and all(fits(item, shape[1], depth + 1) for item in value)
    if kind == "map":
        return isinstance(value, dict) and all(isinstance(key, str) and fits(item, shape[1], depth + 1)
                                               for key, item in value.items())
    _, fields, required, closed = shape
    return (isinstance(value, dict) and required <= value.keys() and (not closed or value.keys() <= fields.keys())
            and all(fits(item, fields[key], depth + 1) if key in fields
                    else depth_within(item, MAX_METADATA_DEPTH - depth) for key, item in value.items()))


def _record_fields(value: dict[str, Any], fields: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """``value`` less its known keys of the wrong shape (each counted): the readers find them missing instead."""
    kept = {key: item for key, item in value.items() if key not in fields or fits(item, fields[key], 1)}
    return kept, len(value) - len(kept)


# -- text: what json.loads makes of ``"\ud800"`` is a lone surrogate, which no UTF-8 page or terminal can take ----
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def without_lone_surrogates(json_text: str) -> str:
    """JSON text whose ``\\uD800``-style escapes of lone surrogates are ``\\ufffd`` (the replacement character), so
    every string parsed from it is valid Unicode, encodable as UTF-8; pairs (an emoji, escaped) are kept."""
    if "\\ud" not in json_text and "\\uD" not in json_text:
        return json_text
    return _LONE_SURROGATE.sub(r"\\ufffd", json_text)


def _rank_facts(rank: dict[str, Any]) -> bool:
    """A launcher's rank facts: a rank below the world size, both within MAX_RANKS."""
    own, world = rank.get("rank"), rank.get("world_size")
    if not (is_int(own) and 0 <= own < MAX_RANKS):
        return False
    return world is None or (is_int(world) and own < world <= MAX_RANKS)
