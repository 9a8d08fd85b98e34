"""One TORCH_TRACE log's records turned into the trace model the live tracer writes: spans, artifacts, run info."""

from __future__ import annotations

import bisect
import itertools
import json
import re
from pathlib import Path
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from tracers.vocabulary.releases import TOOL_VERSION
from tracers.tracefile.torch_records import (DEBUG_PAYLOAD_CHARS, RecordTranslator, bad_compile_id, compile_id_of,
                                             record_name)
from tracers.tracefile.validation import artifact_details, depth_within, is_int, is_number
from tracers.tracefile.compile_identity import CompileIdentity, plausible, sort_key, torch_id
from tracers.tracefile.events import FORMAT_VERSION, MAX_NESTING, MAX_RANKS, Artifact, RunInfo, Span, Trace

from .export import EXPORT_KINDS, ExportPart
from .frames import frame_label, is_torch_file, wrapped_label
from .records import CORRUPT, Problems, Record, loads
from .regions import stage_of, target_of

# What a log cannot give that a live trace has; the summary and the page say so beside what it does give.
CANNOT_GIVE = (
    "hook spans below torch's own timed regions (the timeline shows torch's dynamo_timed regions instead)",
    "executed lines or deep-mode Python calls",
    "a totals check against torch's in-process counters",
    "decompiled Python of Dynamo's rewritten code (its bytecode is there)",
    "the model behind a pass-through wrapper in frame names",
    "the run's Python, platform, device name or cache settings",
)
# Regions that start a frame's compile: a compile id seen here again, with none of its regions open, means
# the program called torch._dynamo.reset() (torch restarts its ids at 0/0; compile_identity.py keeps them apart).
_FRAME_STARTS = frozenset({"dynamo", "entire_frame_compile"})
# Record kinds a log of a compiling program has on the reference torch; older releases lack some.
EXPECTED_KINDS = ("chromium_event", "dynamo_start", "compilation_metrics", "torch_version")
_COMPILE_KINDS = ("chromium_event", "dynamo_start", "compilation_metrics")  # a log that has none compiled nothing
# torch stamps its regions with the wall clock, in µs since the epoch: a stamp outside 1970-2100 is damage (and
# would place the run anywhere from year -29719 on); one more than MAX_REGION_US from the middle of the log's
# regions is not of this run (a flipped digit) and is left out when the log is finished.
EARLIEST_US, LATEST_US = 0, 4_102_444_800_000_000
# One log's regions come in time order (torch logs each as it happens); threads may swap a few µs. A region
# earlier than that before the latest one seen means records out of order (a log cut and pasted back wrongly).
ORDER_SLACK_NS = 1_000_000
MAX_REGION_US = 400 * 86_400 * 1_000_000  # a complete event's duration: more than 400 days is damage
BAD_TIME = "record with a timestamp not finite or outside the run"
BAD_RANK = "record with a rank out of range"
OUT_OF_ORDER = "record out of time order (the log read in time order)"
# the same timed region again, and what follows it: records written twice (a log concatenated with itself, or torch
# logging a compile's records again under new compile numbers), read once; the new numbers are kept to be said
REPEATED = "repeated record (written again with the same time: read once)"
TOO_DEEP = f"record of a region nested more than {MAX_NESTING} deep"
# the same check a trace file's artifacts get (tracefile/validation.py), so a log read alone or among ranks is read alike
WRONG_TYPE = "record with a field of the wrong type (the field left out)"
BAD_COMPILE_ID = "record with a compile id that is not torch's (read without it)"
# A region event whose payload was damaged past parsing: its fields are read where they still stand whole.
_EVENT_FIELDS = {"ph": re.compile(r'"ph":\s*"([BEXi])"'), "name": re.compile(r'"name":\s*"((?:[^"\\]|\\.)*)"'),
                 "ts": re.compile(r'"ts":\s*(\d+(?:\.\d+)?)[,}\s]')}
# A compile whose backend raised (compilation_metrics' fail_type; torch/_dynamo/exc.py): the graph handed to it
# became no compiled graph, and torch does not count it (unique_graphs is counted after the backend returns, in
# OutputGraph.compile_and_call_fx_graph). It is kept under a name that says so, out of the graphs counted.
BACKEND_FAILED = "BackendCompilerFailed"
# torch's regions that belong to no compile (no compile id, enclosed by none, overlapping none of the log's compiles: a
# C++ build before the first compile began): their time is no compile's, so they are kept as records, not as steps
OUTSIDE = "timed region outside every compile (kept apart: not compile time)"
MAX_INSIDE = 20  # the regions inside one such region named in its record
FAILED_GRAPH = "dynamo_output_graph (its backend raised: no compiled graph)"
_UNKNOWN = "unknown"
_NOT_LOGGED = "name not in the log"
_THREAD_NAME = "torch (from its log)"


@dataclass(frozen=True)
class Converted:
    trace: Trace
    rank: int | None  # the records' own rank field (torch writes it under torch.distributed)
    missing_kinds: tuple[str, ...]  # of EXPECTED_KINDS, those this log never had (an older torch, or cut short)


class LogConverter:
    """Fed one log's records in order; ``finish`` gives the trace. Holds only the trace being built."""

    def __init__(self, source: str, problems: Problems, keep_code: bool = True, roots: tuple[Path, ...] = ()):
        self.source = source
        self.roots = roots  # directories whose sources may name a frame's class (frames.py)
        self.problems = problems
        self.translator = RecordTranslator(keep_code, from_log=True)
        self.identity = CompileIdentity()
        self.spans: list[Span] = []
        self.artifacts: list[Artifact] = []
        self._open: list[Span] = []  # torch's regions open now, outermost first
        self._raw_id: dict[int, str | None] = {}  # span id -> torch's own compile id
        self._started: set[str] = set()  # torch ids whose frame compile began since the last reset
        self._span_ids = itertools.count(1)
        self._artifact_ids = itertools.count(1)
        self._last_ns: int | None = None
        self._frames: dict[str, str] = {}  # trace compile id -> frame label
        self._kinds: Counter[str] = Counter()
        self.export = ExportPart()  # torch.export's records, counted apart: they are no compile
        self.torch_version, self.torch_sha = _UNKNOWN, ""
        self.rank: int | None = None
        self.pid = 0
        self.device = "cpu"
        self.out_of_order = 0  # regions stamped before the latest seen: the log wants reading in time order
        self._latest_ns = 0
        # every region event, by its fields' hash (a tuple each would cost 100 bytes more a region): one seen again
        # starts a repeat of the log
        self._seen: set[int] = set()
        self._repeating = False  # inside a repeat: the records after a region seen already are its copies too
        self._repeats: dict[str, set[str]] = {}  # torch's compile id on a repeated record -> those its regions name
        self._line = 0
        # damaged region events that could not be read, each as [the time stamp before it, the first after it]: a
        # region left open across one may have ended there (its end is what was lost); each explains one such end
        self._lost: list[list[int | None]] = []
        self._outside_starts: list[int] = []  # where the regions outside every compile began (_outside_compiles)

    # -- records ---------------------------------------------------------------------------
    def feed(self, records: Iterable[Record]) -> None:
        for record in records:
            try:
                self._record(record)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError, OverflowError):
                # a record whose shape this reader does not know (another release's, or damaged)
                if not record.damaged:  # a damaged payload is counted once, where it was read
                    self.problems.note(CORRUPT, f"{self.source}:{record.line}")

    def _record(self, record: Record) -> None:
        metadata = record.metadata
        name = record_name(metadata)
        self._line = record.line
        event = self._event(record) if name == "chromium_event" else None
        if event is not None:
            self._region(event)
        if self._repeating:
            self.problems.note(REPEATED, f"{self.source}:{record.line}")
            self._note_repeat(metadata, event)
            return
        self._kinds[name] += 1
        self.pid = self.pid or record.pid
        if "rank" in metadata:
            rank = metadata["rank"]
            if is_int(rank) and 0 <= rank < MAX_RANKS:
                self.rank = rank
            else:
                self.problems.note(BAD_RANK, f"{self.source}:{record.line}")
        if name == "chromium_event":
            return
        if bad_compile_id(metadata):  # compile_id_of gives None: the record is read as one outside any compile
            self.problems.note(BAD_COMPILE_ID, f"{self.source}:{record.line}")
        elif compile_id_of(metadata) is None:
            self.export.note(name, metadata)
            if isinstance(metadata.get("stack"), list) and name not in EXPORT_KINDS:
                self.export.note_stack([self.translator.filename(frame.get("filename"))
                                        for frame in metadata["stack"] if isinstance(frame, dict)])
        if name == "torch_version" and record.payload:
            version = loads(record.payload)
            self.torch_version = str(version.get("pytorch_version") or _UNKNOWN)
            self.torch_sha = str(version.get("commit") or "")
        elif name == "describe_tensor" and "cuda" in str((metadata.get(name) or {}).get("device", "")):
            self.device = "cuda"
        elif name == "inductor_output_code" and "triton" in (record.payload or ""):
            self.device = "cuda"  # Triton kernels: the graph ran on a GPU
        elif name == "dynamo_start":
            self._maybe_reset(compile_id_of(metadata))
        found = self.translator.translate(metadata, record.payload)
        if found is None:
            return
        if name == "link" and isinstance(metadata.get("link"), dict) and metadata["link"].get("name"):
            # the link's name (tlparse's label for it) is its own, not a field the translator drops
            found = replace(found, name=f"link {metadata['link']['name']}")
        if not depth_within(found.details):
            raise ValueError("metadata nested deeper than a record of torch's")
        details, wrong = artifact_details(found.details)
        if wrong:
            self.problems.note(WRONG_TYPE, f"{self.source}:{record.line}")
            found = replace(found, details=details)
        span = self._open[-1] if self._open else None
        torch_id = found.torch_compile_id if plausible(found.torch_compile_id) else None
        compile_id = self.identity.qualify(torch_id, span.stage if span else None)
        compile_id = compile_id or (span.compile_id if span else None)
        if found.kind == "metrics" and compile_id and found.details.get("co_name"):
            details = found.details
            filename = str(details.get("co_filename", "?"))
            label = frame_label(str(details["co_name"]), filename, details.get("co_firstlineno"), self.roots)
            self._frames[compile_id] = wrapped_label(label, self._guards_of(compile_id)) if is_torch_file(filename) \
                else label
        elif found.kind == "frame" and compile_id and compile_id not in self._frames:
            self._frames[compile_id] = self._frame_from_start(metadata)
        self.artifacts.append(Artifact(
            id=next(self._artifact_ids), kind=found.kind, name=found.name, compile_id=compile_id,
            span=span.id if span else None, thread_id=record.pid, ts_ns=self._last_ns or 0,
            metadata=found.details, payload=found.payload, payload_size=found.payload_size))

    def _guards_of(self, compile_id: str) -> str | None:
        """The guards torch logged for a compile (just before its metrics), or None."""
        for artifact in reversed(self.artifacts[-64:]):
            if artifact.compile_id == compile_id and artifact.kind == "guards" and artifact.payload:
                return artifact.payload
        return None

    def _event(self, record: Record) -> dict[str, Any] | None:
        """A region event; of a damaged one, the fields still whole, or None (its place kept as lost)."""
        if not record.damaged:
            return loads(record.payload or "{}")
        try:
            event = loads(record.payload or "{}")
        except (ValueError, RecursionError):
            event = None
        if isinstance(event, dict):
            return event
        found = {key: pattern.search(record.payload or "") for key, pattern in _EVENT_FIELDS.items()}
        if all(found.values()):
            return {"ph": found["ph"][1], "name": loads(f'"{found["name"][1]}"'),  # type: ignore[index]
                    "ts": float(found["ts"][1]), "args": {}}  # type: ignore[index]
        self._lost.append([self._last_ns, None])
        return None

    def _note_repeat(self, metadata: dict[str, Any], event: Any) -> None:
        """A repeated record's compile id, and the one its region names (the compile it repeats)."""
        own = compile_id_of(metadata)
        if not plausible(own):
            return
        named = (event.get("args") or {}).get("compile_id") if isinstance(event, dict) and \
            isinstance(event.get("args"), dict) else None
        found = self._repeats.setdefault(own, set())  # type: ignore[arg-type]
        if plausible(named) and named != "None":
            found.add(named)

    def _frame_from_start(self, metadata: dict[str, Any]) -> str:
        """A frame's name from dynamo_start's stack (its last entry) when compilation_metrics never came."""
        stack = (metadata.get("dynamo_start") or {}).get("stack") or metadata.get("stack") or [{}]
        last = stack[-1]
        filename = self.translator.filename(last.get("filename", "?"))
        return frame_label(str(last.get("name", "?")), filename, last.get("line"), self.roots)

    def _maybe_reset(self, torch_id: str | None) -> None:
        if torch_id is None or torch_id.startswith("!"):
            return
        if torch_id in self._started and not any(self._raw_id.get(span.id) == torch_id for span in self._open):
            self.identity.note_reset()
            self._started.clear()
        self._started.add(torch_id)

    # -- torch's timed regions -------------------------------------------------------------
    def _region(self, event: dict[str, Any]) -> None:
        phase, region, ts = event.get("ph"), str(event.get("name", "?")), event.get("ts")
        key = hash((phase, region, ts, event.get("pid"), event.get("tid")))
        if key in self._seen:
            self._repeating = True
            return
        self._repeating = False
        self._seen.add(key)
        if not (is_number(ts) and EARLIEST_US <= ts <= LATEST_US):
            self.problems.note(BAD_TIME, f"{self.source}:{self._line}")
            return
        ts_ns = round(ts * 1000)
        for lost in self._lost:
            if lost[1] is None:
                lost[1] = ts_ns  # the first time after a lost event: the latest it can have happened
        if phase in ("B", "E"):
            if ts_ns < self._latest_ns - ORDER_SLACK_NS:
                self.out_of_order += 1
                self.problems.note(OUT_OF_ORDER, f"{self.source}:{self._line}")
            self._latest_ns = max(self._latest_ns, ts_ns)
        self._last_ns = ts_ns
        if phase == "E":
            self._close(region, ts_ns)
            return
        if phase in ("i", "I"):
            self._instant(region, event, ts_ns)
            return
        if phase not in ("B", "X"):
            return
        duration = event.get("dur", 0) if phase == "X" else 0
        if not (is_number(duration) and 0 <= duration <= MAX_REGION_US):
            self.problems.note(BAD_TIME, f"{self.source}:{self._line}")
            return
        if len(self._open) >= MAX_NESTING:
            self.problems.note(TOO_DEEP, f"{self.source}:{self._line}")
            return
        raw = (event.get("args") or {}).get("compile_id")
        raw = None if raw in (None, "None") else str(raw)
        if raw is not None and not plausible(raw):  # the region is kept, outside any compile of its own
            self.problems.note(BAD_COMPILE_ID, f"{self.source}:{self._line}")
            raw = None
        if region in _FRAME_STARTS:
            self._maybe_reset(raw)
        parent = self._open[-1] if self._open else None
        stage = stage_of(region, parent.stage if parent else None)
        compile_id = self.identity.qualify(raw, stage) or (parent.compile_id if parent else None)
        span = Span(id=next(self._span_ids), parent=parent.id if parent else None, target=target_of(region),
                    stage=stage, thread_id=self.pid, thread_name=_THREAD_NAME, depth=len(self._open),
                    start_ns=ts_ns, compile_id=compile_id)
        self.spans.append(span)
        self._raw_id[span.id] = raw
        if phase == "X":
            span.end_ns = ts_ns + round(duration * 1000)
        else:
            self._open.append(span)

    def _instant(self, region: str, event: dict[str, Any], ts_ns: int) -> None:
        """torch's instant events (``automatic_dynamic``, ``autograd_cache_miss``…): kept as records of their compile,
        their fields as torch gave them (bounded: a cache event carries the graph's code)."""
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        raw = args.get("compile_id")
        raw = str(raw) if raw not in (None, "None") and plausible(str(raw)) else None
        span = self._open[-1] if self._open else None
        compile_id = self.identity.qualify(raw, span.stage if span else None) or (span.compile_id if span else None)
        details, _ = artifact_details({key: value for key, value in args.items() if key != "compile_id"})
        payload = json.dumps(details, indent=1, default=str)
        size = len(payload)
        if size > DEBUG_PAYLOAD_CHARS:
            payload = payload[:DEBUG_PAYLOAD_CHARS] + f"\n… cut at {DEBUG_PAYLOAD_CHARS:,} of {size:,} characters"
        self.artifacts.append(Artifact(
            id=next(self._artifact_ids), kind="debug", name=f"{region} (instant event)", compile_id=compile_id,
            span=span.id if span else None, thread_id=self.pid, ts_ns=ts_ns, metadata={}, payload=payload,
            payload_size=size))

    def _close(self, region: str, ts_ns: int) -> None:
        """End the innermost open region of that name: regions of other threads may interleave (torch's
        events carry no thread), so the one closed is not always the innermost of all."""
        target = target_of(region)
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].target == target:
                span = self._open.pop(index)
                span.end_ns = max(ts_ns, span.start_ns)  # an end before its start (out of order): no negative time
                # regions opened inside it and still open: each whose end may be a lost event ended at that event
                for inner in reversed(self._open[index:]):  # innermost first: torch ends regions so
                    if self._lost_end(inner) is not None:
                        self._end_lost(inner)
                return

    def _lost_end(self, span: Span) -> list[int | None] | None:
        """The first lost event after a region's start not yet taken for another region's end, or None."""
        return next((lost for lost in self._lost if (lost[0] or 0) >= span.start_ns), None)

    def _end_lost(self, span: Span) -> None:
        """End a region at the lost event after its start (the first time after it); regions begun after that are
        its siblings, not its children."""
        lost = self._lost_end(span)
        self._lost.remove(lost)  # type: ignore[arg-type]
        end = (lost[1] if lost[1] is not None else self._last_ns) or span.start_ns  # type: ignore[index]
        self._open.remove(span)
        span.end_ns = max(end, span.start_ns)
        moved = {span.id: span}
        for other in self.spans:
            if other.parent in moved and other.start_ns >= span.end_ns and other.parent == span.id:
                other.parent = span.parent
                moved[other.id] = other
                other.depth -= 1
            elif other.parent in moved and other.parent != span.id:  # below one moved up: up with it
                other.depth -= 1
                moved[other.id] = other

    # -- result ----------------------------------------------------------------------------
    def _within_the_run(self) -> None:
        """Leave out regions that start far from the middle of the log's (their children move up to their parent),
        cut ends far from it back to their start, and place artifacts stamped far from it at the middle."""
        if not self.spans:
            return
        middle = sorted(span.start_ns for span in self.spans)[len(self.spans) // 2]
        limit = MAX_REGION_US * 1000

        def far(ns: int | None) -> bool:
            return ns is not None and abs(ns - middle) > limit

        gone = {span.id: span.parent for span in self.spans if far(span.start_ns)}
        if gone:
            self.problems.note(BAD_TIME, self.source, len(gone))
            self.spans = [span for span in self.spans if span.id not in gone]
        for span in self.spans:
            seen = 0
            while span.parent in gone and seen <= MAX_NESTING:  # moved up past parents left out
                span.parent, seen = gone[span.parent], seen + 1
            if far(span.end_ns):
                span.end_ns = span.start_ns
        for index, artifact in enumerate(self.artifacts):
            if (artifact.ts_ns and far(artifact.ts_ns)) or artifact.span in gone:
                self.artifacts[index] = replace(artifact, ts_ns=middle,
                                                span=None if artifact.span in gone else artifact.span)

    def _outside_compiles(self) -> None:
        """Top regions with no compile id that overlap no compile's top region: each, with the regions inside it,
        becomes one record of its own (a log that compiled nothing keeps its regions: there is no compile to charge)."""
        compiles = sorted((span.start_ns, span.end_ns or span.start_ns) for span in self.spans
                          if span.parent is None and span.compile_id)
        if not compiles:
            return
        starts = [start for start, _ in compiles]
        reach = list(itertools.accumulate((end for _, end in compiles), max))  # the latest end among the first i

        def overlaps(span: Span) -> bool:
            before = bisect.bisect_left(starts, span.end_ns or span.start_ns)  # compiles that start before it ends
            return before > 0 and reach[before - 1] > span.start_ns

        outside = {span.id: span for span in self.spans if span.parent is None and not span.compile_id
                   and not overlaps(span)}
        if not outside:
            return
        inside: dict[int, list[Span]] = {key: [] for key in outside}
        top = dict.fromkeys(outside)  # span id -> the outside region it lies in
        for span in self.spans:
            if span.parent in top:
                top[span.id] = top[span.parent] or span.parent
                inside[top[span.id]].append(span)  # type: ignore[index]
        for key, span in outside.items():
            self.problems.note(OUTSIDE, self.source)
            self.artifacts.append(self._region_record(span, inside[key]))
            self._outside_starts.append(span.start_ns)
        self.spans = [span for span in self.spans if span.id not in top]

    def _region_record(self, span: Span, inside: list[Span]) -> Artifact:
        """A region outside every compile as a record: its name, time, and the regions inside it."""
        region = span.target.split(":", 1)[1]
        named = [{"region": other.target.split(":", 1)[1], "ms": round(other.duration_ns / 1e6, 3)}
                 for other in inside[:MAX_INSIDE]]
        details = {"ms": round(span.duration_ns / 1e6, 3), "regions_inside": len(inside)}
        payload = json.dumps({**details, "inside": named}, indent=1)
        return Artifact(id=next(self._artifact_ids), kind="debug", name=f"{region} (outside every compile)",
                        compile_id=None, span=None, thread_id=self.pid, ts_ns=span.start_ns, metadata=details,
                        payload=payload, payload_size=len(payload))

    def _uncount_failed_graphs(self) -> None:
        """Each compile whose backend raised: its last graph (the one handed to the backend) renamed FAILED_GRAPH."""
        failed = {artifact.compile_id for artifact in self.artifacts
                  if artifact.kind == "metrics" and artifact.metadata.get("fail_type") == BACKEND_FAILED}
        last = {artifact.compile_id: index for index, artifact in enumerate(self.artifacts)
                if artifact.name == "dynamo_output_graph" and artifact.compile_id in failed}
        for index in last.values():
            self.artifacts[index] = replace(self.artifacts[index], name=FAILED_GRAPH)

    def _renumbered(self) -> dict[str, list[str]]:
        """Compile numbers seen only on repeated records, each with the compiles whose records it repeats."""
        own = {torch_id(artifact.compile_id) for artifact in self.artifacts if artifact.compile_id} | \
            {torch_id(span.compile_id) for span in self.spans if span.compile_id}
        return {new: sorted(named, key=sort_key) for new, named in sorted(self._repeats.items(), key=lambda i: sort_key(i[0]))
                if new not in own and "/" in new}

    def finish(self, file_name: str) -> Converted:
        if not self.problems.counts.get("truncated record"):  # the log's end is whole: a lost end, not a run going on
            for span in reversed(list(self._open)):
                if self._lost_end(span) is not None:
                    self._end_lost(span)
        unfinished = len(self._open)
        end = self._last_ns or 0
        for span in self._open:
            span.end_ns, span.unfinished = max(end, span.start_ns), True
        self._open.clear()
        self._within_the_run()
        self._outside_compiles()
        self._uncount_failed_graphs()
        # A compile that stopped before torch named its code (a hit recompile limit logs no co_name) is of the
        # same frame as its siblings: ``0/3`` recompiles the code of ``0/0`` (the part before the last ``/``).
        by_frame = {compile_id.rsplit("/", 1)[0]: label for compile_id, label in self._frames.items()}
        for span in self.spans:
            if span.compile_id:
                span.frame = self._frames.get(span.compile_id) or by_frame.get(span.compile_id.rsplit("/", 1)[0])
        # the run began with its first region, one outside every compile included
        first_ns = min([span.start_ns for span in self.spans] + self._outside_starts, default=0)
        started = datetime.fromtimestamp(first_ns / 1e9, UTC).isoformat(timespec="seconds") if first_ns else ""
        for index, artifact in enumerate(self.artifacts):
            if not artifact.ts_ns:  # a record before any timed region: placed at the first one
                self.artifacts[index] = replace(artifact, ts_ns=first_ns)
        compiled = any(self._kinds[kind] for kind in _COMPILE_KINDS)
        export = self.export.as_dict(compiled)
        # a log of torch.export alone has none of a compile's records by nature: nothing is missing from it
        export_only = export is not None and not compiled
        missing = tuple(kind for kind in EXPECTED_KINDS if not self._kinds[kind]) if self._kinds and not export_only \
            else ()
        info = RunInfo(
            format_version=FORMAT_VERSION, tool_version=TOOL_VERSION, torch_version=self.torch_version,
            torch_git_sha=self.torch_sha, python=_UNKNOWN, platform=_UNKNOWN, device=self.device, device_name=_NOT_LOGGED,
            cache_mode=_UNKNOWN, command=["TORCH_TRACE", file_name], started_at=started,
            status="running" if unfinished or self.problems.counts.get("truncated record") else "ok",
            dropped_records=dict(sorted(self.translator.dropped.items())),
            resets=self.identity.resets,
            # torch's regions are timed with the wall clock, so the span clock is the wall clock (merge aligns by it)
            clock={"perf_ns": 0, "wall_ns": 0},
            from_log={"file": file_name, "written_by": f"torch {self.torch_version}" + (
                          f" ({self.torch_sha[:12]})" if self.torch_sha else ""),
                      "cannot_give": list(CANNOT_GIVE), "missing_record_kinds": list(missing),
                      "problems": dict(self.problems.counts), "records": sum(self._kinds.values()),
                      "pid": self.pid, **({"export": export} if export else {}),
                      **({"repeats": repeats} if (repeats := self._renumbered()) else {})},
        )
        trace = Trace(info, self.spans, self.artifacts)
        return Converted(trace, self.rank, missing)

