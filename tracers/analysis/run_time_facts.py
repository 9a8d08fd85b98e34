"""What torch did at run time, said as findings: a compiled function's CUDA graphs recorded again per input size."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from tracers.tracefile.events import Trace
from tracers.vocabulary.durations import duration

from .finding_type import Explained, Finding
from .frames import SourceLine, caller_paths, is_users_file, parse_location, user_caller
from .trace_facts import TraceFacts
from .user_names import frame_words

RECORDING = "cudagraph_recording"  # the artifact capture/cudagraph_skips.py files per recording
CUDA_GRAPHS = Explained("chapters/15-cuda-graphs", "CUDA graphs and compile modes", "warm-up-record-replay")
_SIZES_SAID = 6  # distinct sizes named in the finding's line; the parts list every recording
_PLACE = re.compile(r"\(([^()]+:\d+)\)")
# Checked in torch 2.11–2.15: cudagraph_trees' cudagraphify_impl records once per value of the graph's int inputs
# (the sizes, under dynamic shapes), unless config.triton.cudagraph_capture_sizes lists which to record.
_FIX = ("Pad or bucket the inputs to a few sizes, so each size is recorded once and replayed after; or list the "
        "sizes worth recording in torch._inductor.config.triton.cudagraph_capture_sizes (others run without CUDA "
        "graphs); or compile without CUDA graphs: mode=\"max-autotune-no-cudagraphs\", or the default mode.")
_UNDER_LIBRARY = ("{package} compiled this with CUDA graphs{mode} and makes the calls in its own "
                  "loop, so nothing can be placed between its steps: keep the shapes you pass few (pad prompts or "
                  "batches to a few lengths, reuse one cache sized for the longest), or turn its CUDA graphs off where "
                  "it has an option for the compile mode.")
_SAME_SIZES = ("The inputs kept their sizes: a recording is made again when a call reaches the function by another "
               "path (after another compiled function than before) or when its static inputs moved; "
               "torch.compiler.cudagraph_mark_step_begin() at each step's start keeps one path per step.")


@dataclass(frozen=True)
class Recording:
    """One CUDA graph recorded: for which compile (torch's forward or backward of it), with which input sizes."""

    compile_id: str | None
    mode: str | None  # FORWARD, BACKWARD or INFERENCE
    sizes: tuple[Any, ...] | None  # of the inputs copied in: a shape list per tensor, an int per int; None: unknown
    duration_ns: int  # the recording run (record_function's span)


def recordings(trace: Trace) -> list[Recording]:
    """Every recording the trace filed, in order."""
    spans = {span.id: span for span in trace.spans}
    found = []
    for artifact in trace.artifacts:
        if artifact.name != RECORDING:
            continue
        span = spans.get(artifact.span) if artifact.span is not None else None
        sizes = artifact.metadata.get("sizes")
        found.append(Recording(artifact.compile_id, artifact.metadata.get("mode"),
                               tuple(_hashable(size) for size in sizes) if isinstance(sizes, list) else None,
                               span.duration_ns if span is not None else 0))
    return found


def cudagraph_findings(trace: Trace, facts: TraceFacts, library: str | None = None, mode: str | None = None) \
        -> list[Finding]:
    """One finding per compiled function (and direction) whose CUDA graph was recorded more than once; ``library``:
    the package whose code compiled it for the user (its loop makes the calls: nothing to mark there), with the
    ``mode`` its torch.compile call passed."""
    groups: dict[tuple[str, str | None], list[Recording]] = {}
    for recording in recordings(trace):
        if recording.compile_id is not None:
            groups.setdefault((recording.compile_id, recording.mode), []).append(recording)
    frames = {compile_facts.compile_id: compile_facts.frame for compile_facts in facts.compiles}
    known = caller_paths(trace)
    found = [_finding(compile_id, mode, group, frames.get(compile_id), user_caller(trace, compile_id), known)
             for (compile_id, mode), group in groups.items() if len(group) > 1]
    said = _UNDER_LIBRARY.format(package=library, mode=f" (mode={mode!r})" if mode else "") if library else ""
    return [dataclasses.replace(finding, advice=said) for finding in found] \
        if library else found


def _finding(compile_id: str, mode: str | None, group: list[Recording], frame: str | None,
             caller: SourceLine | None, known: set[str]) -> Finding:
    sizes = list(dict.fromkeys(recording.sizes for recording in group if recording.sizes is not None))
    spent = sum(recording.duration_ns for recording in group)
    direction = f" ({mode.lower()})" if mode in ("FORWARD", "BACKWARD") else ""
    what = f"{frame_words(frame)}{direction} recorded {len(group)} CUDA graphs"
    if len(sizes) > 1:
        said = "; ".join(_said(size) for size in sizes[:_SIZES_SAID]) + (" …" if len(sizes) > _SIZES_SAID else "")
        what += f", one per input size ({said})"
    what += (f": each is a separate recording run ({duration(spent)} in all) and keeps its own input and output "
             "buffers in the CUDA-graph memory pool, so memory grows with every new size")
    parts = tuple(f"recording {index}: inputs {_said(recording.sizes) if recording.sizes is not None else '?'}, "
                  f"{duration(recording.duration_ns)}" for index, recording in enumerate(group, 1))
    return Finding(
        kind="cudagraph-rerecord", what=what, events=len(group), compile_ids=(compile_id,),
        cost_s=0.0,  # run time, not compile: the ledger counts compile time only
        # the user's line that calls the compiled function, and where that function is when it is not the user's
        user_line=caller or _line(frame), library_line=_library(_line(frame), caller, known), parts=parts, advice=_FIX if len(sizes) > 1 else _SAME_SIZES,
        explained=CUDA_GRAPHS, cost_counts="")


def _hashable(size: Any) -> Any:
    return tuple(size) if isinstance(size, list) else size


def _said(sizes: Any) -> str:
    """``[16, 64], 8``: each input's shape (or int), as torch would print its sizes."""
    if not isinstance(sizes, tuple):
        return str(sizes)
    return ", ".join(f"[{', '.join(str(part) for part in size)}]" if isinstance(size, tuple) else str(size)
                     for size in sizes) or "none"


def _library(defined: SourceLine | None, caller: SourceLine | None, known: set[str]) -> SourceLine | None:
    """Where the compiled function is, beside the user's calling line, when it is a library's (a model's forward)."""
    return defined if defined is not None and caller is not None and not is_users_file(defined.path, known) else None


def _line(frame: str | None) -> SourceLine | None:
    """``step (train.py:12)`` -> train.py:12, named ``step``: where the compiled function starts."""
    match = _PLACE.search(frame or "")
    place = parse_location(match.group(1)) if match else None
    return SourceLine(place.path, place.line, (frame or "").split(" (", 1)[0]) if place else None
