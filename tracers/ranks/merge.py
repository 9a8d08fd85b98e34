"""Rank traces found, loaded and merged into one Chrome trace: one process per rank, on one clock."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile import validation
from tracers.tracefile.validation import Dropped
from tracers.tracefile.chrome import TOOL_KEY, TraceFileError, from_chrome, load, parse_json, to_chrome
from tracers.tracefile.events import MAX_RANKS, Trace, rank_of
from tracers.tracefile.names import TraceName, parse, rank_files
from tracers.tracefile.scrub import scrub
from tracers.vocabulary.printable import printable_value
from tracers.vocabulary.releases import TOOL_VERSION

from .clock import Alignment, align, apart, beyond_reason, end_ns, runs_apart, start_ns

RANKS_KEY = "torch_compile_walkthrough_ranks"  # marks a merged file (its ranks' own metadata is inside)
FORMAT_VERSION = 1
_DEEP_PID = 100_000  # deep-mode tracks of rank N are process 100000 + N, below the ranks in Perfetto

# How a rank's run ended (runner.Outcome.status), as the merged timeline names it.
_ENDINGS = {"error": "crashed", "terminated": "killed (SIGTERM)", "interrupted": "interrupted (Ctrl-C)",
            "exit": "exited with an error status", "running": "still running when its trace was written"}
NO_TRACE = "no trace: the rank never started, or was killed before it could write one (SIGKILL, out of memory)"


class MergeError(Exception):
    """Nothing to merge, or inputs that do not belong together; one line says why."""

    def __init__(self, message: str):
        # built from file names and the traces' own words: made printable once, here, wherever it is shown
        super().__init__(printable_value(message))


@dataclass(frozen=True)
class RankTrace:
    rank: int
    trace: Trace | None
    source: str  # the rank trace's file name ("" when there is none)
    problem: str | None = None  # why there is no trace, or why it is incomplete
    # Set for a process that is no rank (a traced run's main process, a worker): its name on the timeline;
    # ``rank`` is then only its place in the merged file.
    process: str | None = None

    @property
    def name(self) -> str:
        return self.process or f"rank {self.rank}"

    @property
    def ending(self) -> str | None:
        """None for a rank that finished normally; else how it ended, in words."""
        if self.trace is None:
            return self.problem or NO_TRACE
        info = self.trace.info
        if info.status == "ok":
            return None
        ending = _ENDINGS.get(info.status, info.status)
        if info.status == "exit":
            ending = f"exited with status {info.exit_code}"
        return f"{ending}: {info.error}" if info.error else ending

    @property
    def label(self) -> str:
        ending = self.ending
        if ending is None:
            return self.name
        return f"{self.name} — {ending.split(':', 1)[0] if self.trace is not None else 'no trace'}"


@dataclass(frozen=True)
class MergedRun:
    name: str
    device: str  # cuda if any rank ran on a GPU
    cache: str
    world_size: int
    ranks: tuple[RankTrace, ...]  # every rank of the world, those without a trace too
    alignment: Alignment
    kind: str = "ranks"  # or "processes": a traced run's main process and its children, ranks or not

    def __post_init__(self) -> None:
        # Whoever placed the ranks (clock anchors, torch's log clock, a merged file read back), ranks whose runs lie
        # far apart on that axis ran at other times: said once, here, for every view (a child process may start
        # hours after its parent, so processes are left as placed).
        if self.kind != "ranks" or self.alignment.checked:
            return
        windows = {rank: (start_ns(trace), end_ns(trace)) for rank, trace in self.present
                   if trace.spans or trace.artifacts or trace.deep_events}
        checked = runs_apart(self.alignment, windows)
        if checked is not None:
            object.__setattr__(self, "alignment", checked)  # frozen: set once, before anyone reads it

    @cached_property  # read per rank and per line of the summary and page: built once (frozen, so it holds)
    def present(self) -> list[tuple[int, Trace]]:
        return [(rank.rank, rank.trace) for rank in self.ranks if rank.trace is not None]

    @property
    def trace_name(self) -> TraceName:
        return TraceName(self.name, self.device, self.cache, merged=self.kind)

    @property
    def file_name(self) -> str:
        return self.trace_name.file_name

    @cached_property
    def names(self) -> dict[int, str]:
        """Each slot's name: ``rank N``, or the process's own (``main process``, ``process 4242``)."""
        return {rank.rank: rank.name for rank in self.ranks}

    @cached_property
    def rank_traces(self) -> dict[int, Trace]:
        """The traces of real ranks only: what divergence compares."""
        return {rank.rank: rank.trace for rank in self.ranks if rank.trace is not None and rank.process is None}


def find_rank_files(inputs: list[str]) -> list[Path]:
    """The rank traces named by files and directories (a directory: every ``…-rank<N>.json`` in it)."""
    files: list[Path] = []
    for text in inputs:
        path = Path(text)
        if path.is_dir():
            found = rank_files(path)
            if not found:
                raise MergeError(f"{text}: no rank traces (<script>-<device>-<cache>-rank<N>.json) in this directory")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise MergeError(f"{text}: not a regular file (a pipe, device or socket): refused without reading it")
        else:
            raise MergeError(f"{text}: no such file or directory")
    return files


def _run_key(path: Path, trace: Trace) -> tuple[str, str, str, str]:
    """What the ranks of one run share: the script, device, cache mode and the launcher's run id (a folder
    used again keeps an earlier run's rank file when a rank of the new run leaves none)."""
    parsed = parse(path.name)
    name = parsed.run if parsed is not None else path.stem
    return name, trace.info.device, trace.info.cache_mode, str((trace.info.rank or {}).get("run_id") or "-")


def load_run(paths: list[Path], world_size: int | None = None) -> MergedRun:
    """Load the rank traces of one run. Ranks the world has but no file holds are kept as missing;
    ``world_size`` (from ``--nproc``) says how many there must be when no trace survived to say it."""
    loaded: list[tuple[Path, Trace, int]] = []
    for path in paths:
        try:
            trace = load(path)
        except TraceFileError as error:
            raise MergeError(str(error)) from None
        rank = rank_of(trace.info)
        if rank is None:
            raise MergeError(f"{path}: not a rank's trace (it was recorded outside a distributed launcher)")
        loaded.append((path, trace, rank))
    keys = {_run_key(path, trace) for path, trace, _ in loaded}
    if len(keys) > 1:
        runs = ", ".join(f"{name} ({device}, {cache}, run {run_id})" for name, device, cache, run_id in sorted(keys))
        raise MergeError(f"these rank traces come from different runs: {runs}; name one run's files, "
                         f"e.g. DIR/{min(keys)[0]}-*-rank*.json")
    by_rank: dict[int, RankTrace] = {}
    sizes: set[int] = set()
    for path, trace, rank in loaded:
        if rank in by_rank:
            raise MergeError(f"{path}: rank {rank} twice (also {by_rank[rank].source}); merge one run at a time")
        size = trace.info.rank.get("world_size")  # type: ignore[union-attr]  (checked on reading: a whole number or None)
        sizes.add(size if validation.is_int(size) else rank + 1)
        by_rank[rank] = RankTrace(rank, trace, path.name)
    if len(sizes) > 1:
        raise MergeError(f"the rank traces disagree on the world size ({', '.join(map(str, sorted(sizes)))})")
    if not by_rank:
        raise MergeError("no rank traces to merge")
    name, device, cache, _ = keys.pop()
    world = max(sizes.pop(), world_size or 0, max(by_rank) + 1)
    ranks = tuple(by_rank.get(rank) or RankTrace(rank, None, "") for rank in range(world))
    present = {rank.rank: rank.trace for rank in ranks if rank.trace is not None}
    alignment = align({rank: trace.info for rank, trace in present.items()},
                      {rank: start_ns(trace) for rank, trace in present.items()})
    return MergedRun(name, device, cache, world, ranks, alignment)


@dataclass(frozen=True)
class Marker:
    """A moment to flag on the merged timeline (e.g. the first divergence), on one rank's own span clock."""

    rank: int
    ns: int
    name: str
    args: dict[str, Any]


def to_merged_chrome(run: MergedRun, markers: tuple[Marker, ...] = (),
                     diagnostics: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each rank's own Chrome events (chrome.to_chrome, the one writer), moved onto the shared clock and
    into a process named after the rank; each rank's metadata and artifacts kept to read it back.
    ``markers`` become instant events across the whole timeline; ``diagnostics`` (the multi-rank
    summary as data) go into the metadata."""
    singles = {rank: to_chrome(trace) for rank, trace in run.present}
    starts = {rank: single["otherData"]["origin_ns"] + run.alignment.offsets_ns[rank]
              for rank, single in singles.items()}
    origin = min(starts.values(), default=0)
    events: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    for rank_trace, through in _slots_written(run):
        rank = rank_trace.rank
        label = rank_trace.label if through == rank else f"ranks {rank}–{through} — no trace"
        events.append({"ph": "M", "name": "process_name", "pid": rank, "tid": 0, "args": {"name": label}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": rank, "tid": 0, "args": {"sort_index": rank}})
        entry: dict[str, Any] = {"rank": rank, "source": rank_trace.source, "problem": rank_trace.problem,
                                 "process": rank_trace.process, **({"through": through} if through != rank else {})}
        if rank in singles:
            single = singles[rank]
            shift_us = round((starts[rank] - origin) / 1000, 3)
            own_pids = sorted({event["pid"] for event in single["traceEvents"]})
            own_pid = own_pids[0]
            for event in single["traceEvents"]:
                if event.get("ph") == "M" and event.get("name") == "process_name" and event["pid"] == own_pid:
                    continue  # the rank's process is named above
                # moved in place: the rank's events are this function's own copy (to_chrome made them just now)
                event["pid"] = rank if event["pid"] == own_pid else _DEEP_PID + rank
                if "ts" in event:
                    event["ts"] = round(event["ts"] + shift_us, 3)
                events.append(event)
            entry.update(info=single["otherData"][TOOL_KEY], origin_ns=single["otherData"]["origin_ns"],
                         shift_us=shift_us, artifacts=single["artifacts"], executed_lines=single["executed_lines"])
        kept.append(entry)
    for marker in markers:
        ts = round((marker.ns + run.alignment.offsets_ns.get(marker.rank, 0) - origin) / 1000, 3)
        # Global scope: Perfetto draws it across every rank's track, where the ranks part ways.
        events.append({"name": marker.name, "cat": "divergence", "ph": "i", "s": "g", "ts": ts,
                       "pid": marker.rank, "tid": 0, "args": marker.args})
    meta = {"format_version": FORMAT_VERSION, "tool_version": TOOL_VERSION, "name": run.name, "device": run.device,
            "cache": run.cache, "world_size": run.world_size, "alignment": run.alignment.method, "kind": run.kind,
            **({"clock_disagreement": run.alignment.disagreement} if run.alignment.disagreement else {}),
            **({"diagnostics": diagnostics} if diagnostics is not None else {})}
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": {RANKS_KEY: meta}, "ranks": kept}


def _slots_written(run: MergedRun) -> list[tuple[RankTrace, int]]:
    """Each slot with the last rank it stands for: consecutive ranks without a trace that say the same are one entry
    (``through``), so the file grows with the traces it holds, not with the highest rank number one of them names."""
    written: list[tuple[RankTrace, int]] = []
    for slot in run.ranks:
        if written:
            first, through = written[-1]
            if (slot.trace is None and first.trace is None and slot.process is None and first.process is None
                    and slot.rank == through + 1 and (slot.source, slot.problem) == (first.source, first.problem)):
                written[-1] = (first, slot.rank)
                continue
        written.append((slot, slot.rank))
    return written


def write_merged(run: MergedRun, path: Path, markers: tuple[Marker, ...] = (),
                 diagnostics: dict[str, Any] | None = None) -> Path:
    text = json.dumps(to_merged_chrome(run, markers, diagnostics), separators=(",", ":"), default=str)
    return write_text_atomic(path, scrub(text))


def is_merged(raw: Any) -> bool:
    return isinstance(raw, dict) and isinstance(raw.get("otherData"), dict) and RANKS_KEY in raw["otherData"]


def is_merged_file(path: Path) -> bool:
    """Whether ``path`` is a readable merged multi-rank trace (anything else: False, for the caller to report)."""
    try:
        return is_merged(parse_json(Path(path), "trace file"))
    except TraceFileError:
        return False


def _number(value: Any, low: float, high: float) -> bool:
    return validation.is_number(value) and low <= value <= high


def load_merged(path: Path, dropped: Dropped | None = None) -> MergedRun:
    """Read a merged file back into its ranks' traces; raises MergeError with one line otherwise. Ranks out of
    range or named twice, and what each rank's trace holds that cannot be used, are left out (``dropped``)."""
    dropped = Dropped() if dropped is None else dropped
    try:
        raw = parse_json(Path(path), "trace file")
    except TraceFileError as error:
        raise MergeError(str(error)) from None
    if not is_merged(raw):
        raise MergeError(f"{path}: not a merged multi-rank trace (no {RANKS_KEY} metadata)")
    meta = raw["otherData"][RANKS_KEY]
    version = meta.get("format_version") if isinstance(meta, dict) else None
    if not validation.is_int(version) or version < 1:
        raise MergeError(f"{path}: merged format {version!r} is not a format version (a whole number)")
    if version > FORMAT_VERSION:
        raise MergeError(f"{path}: merged format {version} is newer than this tool reads ({FORMAT_VERSION})")
    try:
        events_by_pid: dict[int, list[dict[str, Any]]] = {}
        for event in raw["traceEvents"]:
            if isinstance(event, dict) and validation.is_int(event.get("pid")):
                events_by_pid.setdefault(event["pid"], []).append(event)
        ranks: list[RankTrace] = []
        held: set[int] = set()  # a set: a merge of 131,072 ranks is read in one pass, not compared pairwise
        shifts: dict[int, float] = {}
        origins: dict[int, int] = {}
        for entry in raw["ranks"]:
            rank = entry.get("rank") if isinstance(entry, dict) else None
            if not (validation.is_int(rank) and 0 <= rank < MAX_RANKS) or rank in held:
                dropped["ranks out of range or named twice"] += 1
                continue
            source, problem, process = (_text(entry.get(key)) for key in ("source", "problem", "process"))
            if "info" not in entry:
                through = entry.get("through", rank)  # ranks without a trace that said the same, written once
                if not (validation.is_int(through) and rank <= through < MAX_RANKS) or process is not None \
                        or not held.isdisjoint(range(rank, through + 1)):
                    dropped["ranks out of range or named twice"] += 1
                    through = rank
                held.update(range(rank, through + 1))
                ranks.extend(RankTrace(each, None, source or "", problem, process) for each in range(rank, through + 1))
                continue
            held.add(rank)
            mine = events_by_pid.get(rank, []) + events_by_pid.get(_DEEP_PID + rank, [])
            shift, origin = entry.get("shift_us"), entry.get("origin_ns")
            if not validation.is_number(shift):  # its place is lost, not its events: it starts at its first one
                dropped["rank clock shifts that are not numbers (those ranks placed at their first event)"] += 1
                shift = _first_ts(mine)
            if not (validation.is_int(origin) and abs(origin) <= validation.MAX_ORIGIN_NS):
                dropped["bad clock origins (read as 0)"] += 1
                origin = 0
            own = [{**event, "ts": round(event["ts"] - shift, 3)} if validation.is_number(event.get("ts")) else event
                   for event in mine]
            single = {"traceEvents": own, "otherData": {TOOL_KEY: entry["info"], "origin_ns": origin},
                      "artifacts": entry["artifacts"], "executed_lines": entry["executed_lines"]}
            trace = from_chrome(single, f"{path} (rank {rank})", dropped)
            shifts[rank], origins[rank] = shift, origin
            ranks.append(RankTrace(rank, trace, source or "", problem, process))
        world = meta["world_size"]
        if not (validation.is_int(world) and 0 <= world <= MAX_RANKS):
            dropped["world sizes out of range (the ranks found counted)"] += 1
            world = sum(1 for rank in ranks if rank.process is None)
        alignment = _read_alignment(meta, shifts, origins, [rank.rank for rank in ranks])
        kind = meta.get("kind", "ranks")
        return MergedRun(str(meta["name"]), str(meta["device"]), str(meta["cache"]), world, tuple(ranks), alignment,
                         kind if kind in ("ranks", "processes") else "ranks")
    except TraceFileError as error:
        raise MergeError(str(error)) from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise MergeError(f"{path}: merged trace is damaged ({type(error).__name__}: {error})") from None


def _first_ts(events: list[dict[str, Any]]) -> float:
    """Where the writer put a rank's first event (its shift), read from the events themselves."""
    times = [event["ts"] for event in events if validation.is_number(event.get("ts")) and event.get("ph") != "M"
             and abs(event["ts"]) <= validation.MAX_RUN_US]
    return min(times, default=0)


def _read_alignment(meta: dict[str, Any], shifts: dict[int, float], origins: dict[int, int],
                    ranks: list[int]) -> Alignment:
    """The merge's placement of its ranks, read back; a shift no run can hold (a merge by an earlier version on far
    wall clocks, or an edited file) puts each rank at its own start instead, said, rather than dropping the rank.
    Shifts within a run's length are kept as written: a child process may start hours after its parent."""
    said = meta.get("clock_disagreement")
    method = printable_value(meta["alignment"])
    if any(not 0 <= shift <= validation.MAX_RUN_US for shift in shifts.values()):
        apart_ns = (max(shifts.values()) - min(shifts.values())) * 1000
        return beyond_reason({rank: -origins.get(rank, 0) for rank in ranks},
                             f"the merged file places the ranks' starts {apart(apart_ns)} apart")
    offsets = {rank: round(shift * 1000) - origins[rank] for rank, shift in shifts.items()}
    said = printable_value(said) if isinstance(said, str) and said else None
    # the merge that wrote the file checked its placement: its verdict is read as written
    return Alignment({rank: offsets.get(rank, 0) for rank in ranks}, method, said, checked=True)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
