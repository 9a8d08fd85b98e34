"""torch's structured-trace records as artifact fields: which are kept and how, read live or back from a TORCH_TRACE log."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .events import HINT_NAMES
from .validation import is_int

# Keys torch adds to every record's metadata; the remaining key names the record.
_CONTEXT_KEYS = {
    "rank", "compiled_autograd_id", "frame_id", "frame_compile_id", "attempt",
    "has_payload", "stack", "subgraph_name", "severity", "timestamp", "pathname", "thread",
}

# name -> (kind, keep payload). Names not listed are counted but not stored: torch emits many
# records (timing events, tensor descriptions, hash details) that would bloat the trace.
KEPT: dict[str, tuple[str, bool]] = {
    "dynamo_start": ("frame", False),
    "dynamo_output_graph": ("graph", True),
    "aot_joint_graph": ("graph", True),
    "aot_forward_graph": ("graph", True),
    "aot_backward_graph": ("graph", True),
    "aot_inference_graph": ("graph", True),
    "inductor_post_grad_graph": ("graph", True),
    "compiled_autograd_graph": ("graph", True),
    # DDPOptimizer's split of a DDP model's graph at gradient-bucket boundaries, and each piece it compiles.
    "optimize_ddp_split_graph": ("graph", True),
    "optimize_ddp_split_child": ("graph", True),
    "dynamo_cpp_guards_str": ("guards", True),
    "dynamo_guards": ("guards", True),
    "dynamo_graph_break_reason": ("break", True),
    "recompile_reasons": ("recompile", True),
    "inductor_output_code": ("code", True),
    "fx_graph_cache_hit": ("cache", False),
    "fx_graph_cache_miss": ("cache", False),
    "fx_graph_cache_bypass": ("cache", False),
    "fx_graph_bundled_cache_hit": ("cache", False),
    "aotautograd_cache_hit": ("cache", False),
    "aotautograd_cache_miss": ("cache", False),
    "aotautograd_cache_bypass": ("cache", False),
    "compilation_metrics": ("metrics", False),
    # What torch logs for comparing ranks (torch/_inductor/debug.py): the collectives Inductor scheduled, its
    # runtime estimate and output metadata per op, and the order graphs ran in (record_and_log_graph_execution_order).
    "inductor_collective_schedule": ("distributed", True),
    "inductor_runtime_and_tensor_meta": ("distributed", True),
    "graph_execution": ("distributed", True),
    "dynamo_error": ("error", True),
    "symbolic_shape_specialization": ("shapes", False),
    "create_symbol": ("shapes", False),
    "guard_added": ("shapes", False),
}

# Kept only from a TORCH_TRACE log read back (written already: nothing for torch to build): the debugging records
# tlparse lists per compile. In-process they stay filtered out, unbuilt (torch would print fx_graph_runnable's whole
# program at every compile). Their text is cut at DEBUG_PAYLOAD_CHARS: the log keeps the whole of it.
LOG_KEPT: dict[str, tuple[str, bool]] = {
    "fx_graph_cache_hash": ("debug", True),
    "aotautograd_cache_hash": ("debug", True),
    "fx_graph_runnable": ("debug", True),
    "inductor_provenance_tracking_node_mappings": ("debug", True),
    "inductor_provenance_tracking_kernel_stack_traces": ("debug", True),
    "inductor_triton_kernel_to_post_grad_nodes": ("debug", True),
    "inductor_post_to_pre_grad_nodes": ("debug", True),
}
DEBUG_PAYLOAD_CHARS = 64_000
# From a log, the graphs between Inductor's and AOTAutograd's passes (pre/post-grad, joint, before and after a
# recompile) are graphs like the others; every other artifact torch writes (runtime wrappers, AOT metadata, configs,
# kernel info) and the records tlparse shows beside them are kept for the page as debugging records, and the
# descriptions of each input tensor with the symbolic-shape records. Only torch's timed regions (the timeline) and its
# interned file names stay out: nothing a record kind could show is dropped.
LOG_GRAPHS = frozenset({
    "before_pre_grad_graph", "after_pre_grad_graph", "inductor_pre_grad_graph", "before_post_grad_graph",
    "after_post_grad_graph", "before_joint_graph", "after_joint_graph", "before_recompile_pre_grad",
    "after_recompile_pre_grad", "before_recompile_post_grad", "after_recompile_post_grad",
})
LOG_RECORDS = frozenset({"graph_dump", "link", "dump_file", "exported_program", "bwd_compilation_metrics",
                         "aot_autograd_backward_compilation_metrics", "compilation_metrics_runtime"})
LOG_SHAPES = frozenset({"describe_tensor", "describe_storage", "describe_source", "expression_created",
                        "create_unbacked_symbol", "propagate_real_tensors_provenance"})

# Fields of compilation_metrics worth keeping: what was compiled, how big, and why it stopped.
_METRIC_FIELDS = (
    "compile_id", "co_name", "co_filename", "co_firstlineno", "cache_size", "accumulated_cache_size",
    "guard_count", "shape_env_guard_count", "graph_op_count", "graph_node_count", "graph_input_count",
    "fail_type", "fail_reason", "fail_user_frame_filename", "fail_user_frame_lineno",
    "non_compliant_ops", "compliant_custom_ops", "restart_reasons", "dynamo_time_before_restart_s",
    "has_guarded_code", "recompile_reason", "is_forward", "entire_frame_compile_time_s",
    "backend_compile_time_s", "inductor_compile_time_s", "code_gen_time_s", "remote_cache_time_saved_s",
    "triton_version", "cuda_version", "config_suppress_errors",
    # the compile's time, for logs without torch's timed regions (newer torch: start/end/duration; older: *_s above)
    "start_time_us", "end_time_us", "duration_us", "dynamo_cumulative_compile_time_us",
    "structured_logging_overhead_s",  # what torch spent producing the records this tracer reads
)

# The settings of torch._dynamo.config a finding's cause or fix depends on, as torch ran the compile (its
# compilation_metrics carries the whole config as JSON, ``dynamo_config``: kilobytes, so only these are kept).
# ``torch.compile(..., dynamic=False)`` shows here as automatic_dynamic_shapes off for its compiles.
CONFIG_KEY = "config"
CONFIG_SETTINGS = ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "automatic_dynamic_shapes",
                   "assume_static_by_default", "capture_scalar_outputs", "capture_dynamic_output_shape_ops",
                   "skip_nnmodule_hook_guards", "specialize_int", "specialize_float", "force_parameter_static_shapes",
                   "inline_inbuilt_nn_modules", "suppress_errors")


def compile_config(text: Any) -> dict[str, Any]:
    """The kept settings of a compile's ``dynamo_config`` JSON: each a bool or a whole number, else left out."""
    if not isinstance(text, str) or len(text) > 1 << 20:
        return {}
    try:
        config = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(config, dict):
        return {}
    return {key: config[key] for key in CONFIG_SETTINGS
            if isinstance(config.get(key), (bool, int)) and -1 << 62 < int(config[key]) < 1 << 62}


CODE_KINDS = frozenset({"code"})

# Original and rewritten bytecode of a frame: name suffixes, since the name starts with the frame's.
_BYTECODE_SUFFIXES = ("_ORIGINAL_BYTECODE", "_MODIFIED_BYTECODE")

_PACKAGE_DIR = str(Path(__file__).parent.parent)
_CALLERS = 12  # frames kept per compile: the user's line is rarely deeper than a model's own calls  # the tracers package: its frames are not the user's


def keeps(name: str) -> bool:
    """Whether the collector keeps records of this name (``str`` records intern the file names it reads)."""
    return name == "str" or name in KEPT or name.endswith(_BYTECODE_SUFFIXES)


# torch numbers frames, their compiles and compiled autograd's graphs from 0 (CompileId in torch/_guards.py); a
# bool, a list, a string, a negative or a number past 64 bits there is damage, and would make a phantom compile
# (``True/0``) of the record. Such a record is read as one without a compile id (convert.py counts it).
_ID_FIELDS = ("frame_id", "frame_compile_id", "compiled_autograd_id")


def _id_number(value: Any) -> bool:
    return is_int(value) and value >= 0


def bad_compile_id(metadata: dict[str, Any]) -> bool:
    """Whether a record carries a compile id field that is not a whole number from 0."""
    for key in _ID_FIELDS:  # a loop, not any() over a generator: every record of a log is asked, twice
        value = metadata.get(key)
        if value is not None and not _id_number(value):
            return True
    return False


def compile_id_of(metadata: dict[str, Any]) -> str | None:
    """The compile id in torch's own notation (``0/0``, ``!1/0/0`` under compiled autograd); None where the record
    has none, or where one of its fields is not torch's (bad_compile_id)."""
    if bad_compile_id(metadata):
        return None
    frame, frame_compile = metadata.get("frame_id"), metadata.get("frame_compile_id")
    autograd = metadata.get("compiled_autograd_id")
    frame_part = f"{frame}/{frame_compile}" if frame is not None and frame_compile is not None else None
    if autograd is not None:
        return f"!{autograd}" + (f"/{frame_part}" if frame_part else "")
    return frame_part


def record_name(metadata: dict[str, Any]) -> str:
    """The record's own name; artifacts carry theirs inside (``{"artifact": {"name": ...}}``)."""
    name = next((key for key in metadata if key not in _CONTEXT_KEYS), "unknown")
    if name == "artifact":
        inner = metadata.get("artifact") or {}
        return str(inner.get("name", "artifact"))
    return name


def _graph_break_summary(payload: str) -> tuple[dict[str, Any], str]:
    """Location, kind and explanation of a graph break, and its text without Dynamo's own traceback
    or the tracer's frames (which sit below the user's code in the stack)."""
    user_part = payload.split("\nTraceback (most recent call last):", 1)[0].rstrip()
    details: dict[str, Any] = {}
    lines = user_part.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("Graph break in user code at "):
            details["location"] = line.removeprefix("Graph break in user code at ")
        elif line.startswith("Graph Break Reason: "):
            details["reason"] = line.removeprefix("Graph Break Reason: ")
            # Newer releases put a short title on the first non-empty line after the generic reason.
            title = next((later.strip() for later in lines[index + 1:] if later.strip()), "")
            if title and not title.startswith(("User code traceback", "Explanation:")):
                details["title"] = title
        elif line.strip().startswith("Explanation:"):
            details["explanation"] = line.strip().removeprefix("Explanation:").strip()
    return details, _drop_own_frames(user_part)


def _drop_own_frames(text: str) -> str:
    """Remove traceback entries of runpy and this package: they are how the script was started, not user code."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith('  File "'):
            skipping = "<frozen runpy>" in line or _PACKAGE_DIR in line
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept)


@dataclass(frozen=True)
class Translated:
    """One kept record as an artifact's fields; ``torch_compile_id`` is torch's own id (before reset counting)."""

    kind: str
    name: str
    torch_compile_id: str | None
    details: dict[str, Any]
    payload: str | None
    payload_size: int


class RecordTranslator:
    """Turns torch's structured-trace records into artifact fields: one place for what is kept and how,
    whether the records arrive in-process (ArtifactCollector) or are read back from a TORCH_TRACE log."""

    def __init__(self, keep_code: bool = True, dropped: Counter[str] | None = None,
                 hint_check: Callable[[str], dict[str, str | None]] | None = None, from_log: bool = False):
        self.keep_code = keep_code
        self.from_log = from_log  # records read back from a log: LOG_KEPT's are kept too
        self.dropped: Counter[str] = Counter() if dropped is None else dropped
        # Live only (capture/hint_names.py): a log read back later was written by another torch than the one reading it.
        self.hint_check = hint_check
        self._strings: dict[int, str] = {}  # torch interns file names in ``str`` records

    def know_strings(self, table: dict[str, int]) -> None:
        """File names torch interned before these records began: it sends each one once per process."""
        self._strings.update({index: text for text, index in table.items()})

    def translate(self, metadata: dict[str, Any], payload: str | None) -> Translated | None:
        """The artifact a record becomes, or None for a record not kept (counted in ``dropped``)."""
        name = record_name(metadata)
        if name == "str":
            text, index = metadata["str"]
            self._strings[index] = text
            return None
        kept = KEPT.get(name) or (LOG_KEPT.get(name) if self.from_log else None) or \
            (("bytecode", True) if name.endswith(_BYTECODE_SUFFIXES) else None) or \
            (_log_kind(name, metadata) if self.from_log else None)
        if kept is None:
            self.dropped[name] += 1
            return None
        kind, keep_payload = kept
        inner = metadata.get(name) if name in metadata else (metadata.get("artifact") or {})
        details = dict(inner) if isinstance(inner, dict) else {}
        dumped = details.pop("name", None)
        if name == "graph_dump" and isinstance(dumped, str) and dumped:
            name = f"graph_dump {dumped}"  # which graph: AOTInductor's wrapper code, its kernels…, as tlparse names it
        size = len(payload) if payload else 0
        if kind == "break" and payload:
            found, payload = _graph_break_summary(payload)
            details.update(found)
        elif kind == "recompile" and payload:
            details["reasons"] = _json_list(payload)
        elif kind == "metrics":
            config = compile_config(details.get("dynamo_config"))
            details = {key: details[key] for key in _METRIC_FIELDS if details.get(key) not in (None, [], "", {})}
            if config:
                details[CONFIG_KEY] = config
        elif kind == "frame":
            stack = metadata.get("stack") or details.get("stack") or []
            details["user_frame"] = self._user_frame(stack)
            details["callers"] = self._callers(stack)
            compiled = stack[-1] if stack and isinstance(stack[-1], dict) else None
            if compiled is not None:  # the compiled function's file: a model's own loop calling it is regional
                details["compiled_file"] = self.filename(compiled.get("filename"))
            details.pop("stack", None)
        elif kind == "debug" and payload and len(payload) > DEBUG_PAYLOAD_CHARS:
            payload = (payload[:DEBUG_PAYLOAD_CHARS] + f"\n… cut at {DEBUG_PAYLOAD_CHARS:,} of {len(payload):,} "
                       "characters: the log has the whole text")
        elif kind == "distributed" and payload:
            payload = _compact_json(payload)  # torch indents it a value a line: several times the size
        elif kind == "shapes":
            # Each symbol record carries the whole Python stack that created it: kilobytes apiece. The user's frame
            # of it is kept: where a specialisation happened (``for i in range(x.shape[0])``) is the line to name.
            user = [frame for frame in (details.get("user_stack") or metadata.get("user_stack") or [])
                    if isinstance(frame, dict) and _outside(self.filename(frame.get("filename")))]
            details.pop("stack", None)
            details.pop("user_stack", None)
            if user:
                line = user[-1]
                details["user_frame"] = {"filename": self.filename(line.get("filename")), "line": line.get("line"),
                                         "name": line.get("name"), "loc": line.get("loc")}
        if kind in ("break", "recompile") and payload and self.hint_check is not None:
            wrong = self.hint_check(payload)
            if wrong:
                details[HINT_NAMES] = wrong
        if not keep_payload or (kind in CODE_KINDS and not self.keep_code):
            payload = None
        if metadata.get("attempt"):
            # Dynamo restarted this frame's analysis (a restart after a graph was already built); only the
            # last attempt's graph is the one torch keeps and counts.
            details["attempt"] = metadata["attempt"]
        return Translated(kind, name, compile_id_of(metadata), details, payload, size)

    def filename(self, interned: Any) -> str:
        """A file name as torch interned it in an earlier ``str`` record (the index itself if none came)."""
        return self._strings.get(interned, str(interned))

    def resolved_stack(self, metadata: dict[str, Any]) -> list[dict[str, Any]]:
        """A ``dynamo_start`` record's stack, outermost first, the compiled frame last, file names resolved and each
        frame marked ``outside`` where it is neither torch's nor this tracer's."""
        stack = metadata.get("stack") or (metadata.get("dynamo_start") or {}).get("stack") or []
        resolved = []
        for frame in stack:
            if isinstance(frame, dict):
                filename = self.filename(frame.get("filename"))
                resolved.append({**frame, "filename": filename, "outside": _outside(filename)})
        return resolved

    def _callers(self, stack: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The frames outside torch and this tracer that led to the compiled frame, outermost first (at most
        ``_CALLERS``, the innermost): a library's frame (a regional compile inside a model) is reached from the
        user's own line further out, which the findings name."""
        frames = []
        for frame in stack[:-1]:
            filename = self.filename(frame.get("filename"))
            if _outside(filename):
                frames.append({"filename": filename, "line": frame.get("line"), "name": frame.get("name"),
                               "loc": frame.get("loc")})
        return frames[-_CALLERS:]

    def _user_frame(self, stack: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Where the user's code called into the compiled frame: the innermost frame that is not
        torch's own, below the frame being compiled (always the last one of the stack)."""
        for frame in reversed(stack[:-1]):
            filename = self.filename(frame.get("filename"))
            if _outside(filename):
                return {"filename": filename, "line": frame.get("line"), "name": frame.get("name"), "loc": frame.get("loc")}
        return None


def _log_kind(name: str, metadata: dict[str, Any]) -> tuple[str, bool] | None:
    """How a record read from a log that KEPT and LOG_KEPT do not name is kept (LOG_GRAPHS' comment says why)."""
    if name in LOG_GRAPHS:
        return "graph", True
    if name in LOG_SHAPES:
        return "shapes", True
    if name in LOG_RECORDS or (name not in metadata and isinstance(metadata.get("artifact"), dict)):
        return "debug", True
    return None


def _outside(filename: str) -> bool:
    """A frame of the user's or a library's: neither torch's, nor this tracer's, nor the interpreter's."""
    return "/torch/" not in filename and not filename.startswith(_PACKAGE_DIR) and "<frozen" not in filename


def _compact_json(payload: str) -> str:
    try:
        return json.dumps(json.loads(payload), separators=(",", ":"))
    except ValueError:
        return payload  # not JSON after all: kept as torch wrote it


def _json_list(payload: str) -> list[Any]:
    try:
        value = json.loads(payload)
    except ValueError:
        return [payload]
    return value if isinstance(value, list) else [value]
