"""The recorded data: spans, artifacts and run metadata, as plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Bumped when the trace file changes shape; readers refuse newer formats.
FORMAT_VERSION = 1
# Readers hold what they take to these: spans nest a few dozen deep in real traces (hook spans under torch's
# regions), and the largest distributed jobs run tens of thousands of ranks. A number beyond is damage, and
# would otherwise cost a slot (or a stack frame) each.
MAX_NESTING = 256
MAX_RANKS = 1 << 17

DECOMPILED = "decompiled"  # the artifact kind of Dynamo's rewritten code as Python (capture/decompiled.py)
# Artifact metadata: the torch names a hint in it gives that the running torch lacks, each with the setting meant
# (or None); found live (capture/hint_names.py), used to correct the hint in the findings.
HINT_NAMES = "hint_names"


@dataclass(slots=True)
class Span:
    """One call of a hooked entry point. Mutable only while the call is open."""

    id: int
    parent: int | None
    target: str  # Target.name, ``module:qualname``
    stage: str
    thread_id: int
    thread_name: str
    depth: int
    start_ns: int
    end_ns: int | None = None
    compile_id: str | None = None
    frame: str | None = None  # the user code being compiled: ``name (file:line)``
    error: str | None = None  # exception type that left the call, if any
    unfinished: bool = False  # still open when the run ended (crash or Ctrl-C)
    skip_reason: str | None = None  # a frame Dynamo was offered and compiled nothing for: torch's reason, if given

    @property
    def duration_ns(self) -> int:
        return (self.end_ns or self.start_ns) - self.start_ns


@dataclass(frozen=True, slots=True)
class Artifact:
    """One record of torch's structured trace, tied to the span open when torch emitted it."""

    id: int
    kind: str  # graph, guards, code, break, recompile, cache, metrics, shapes, error, frame, DECOMPILED, other
    name: str  # torch's own name, e.g. dynamo_output_graph or fx_graph_cache_hit
    compile_id: str | None
    span: int | None
    thread_id: int
    ts_ns: int
    metadata: dict[str, Any] = field(default_factory=dict)
    payload: str | None = None
    payload_size: int = 0  # size torch produced, kept even when the payload is dropped


@dataclass(frozen=True, slots=True)
class DeepEvent:
    """One Python function call seen by deep mode (viztracer) that lasted at least its minimum."""

    name: str
    thread_id: int
    start_ns: int  # on the recorder's clock (time.perf_counter_ns)
    duration_ns: int


@dataclass(slots=True)
class RunInfo:
    """Metadata block of a trace: what ran, where, and how it ended."""

    format_version: int
    tool_version: str
    torch_version: str
    torch_git_sha: str
    python: str
    platform: str
    device: str
    device_name: str
    cache_mode: str
    command: list[str]
    started_at: str
    status: str = "running"  # ok, exit, error, interrupted, terminated
    exit_code: int | None = None
    error: str | None = None
    targets_hooked: list[str] = field(default_factory=list)
    targets_missing: dict[str, str] = field(default_factory=dict)  # target -> why this torch lacks it
    targets_not_imported: list[str] = field(default_factory=list)  # their module was never loaded
    dropped_records: dict[str, int] = field(default_factory=dict)  # structured-trace names not kept
    warnings: list[str] = field(default_factory=list)
    cuda: str = ""
    deep_min_duration_us: float | None = None  # set when deep mode recorded Python function calls
    lines_recorded: bool = False  # executed lines were counted in the watched torch functions
    # Where each hooked function's body lives in this torch: target -> [path, first line, last line],
    # so a trace links to the right source lines wherever it is rendered later.
    target_sources: dict[str, list] = field(default_factory=dict)
    resets: int = 0  # torch._dynamo.reset() calls during the run; compile ids after the n-th start with rN:
    # The trace's totals beside torch's own counts of the same run (analysis/totals.py: TotalsCheck.as_json()).
    totals_check: dict[str, Any] | None = None
    # Under a distributed launcher: rank, world_size, local_rank, local_world_size, host, launcher, backend.
    rank: dict[str, Any] | None = None
    # The span clock (perf_counter_ns) beside the wall clock at the start, to align several processes' traces.
    clock: dict[str, int] | None = None
    # A child process of a traced run (spawn, forkserver, subprocess): pid, parent_pid, run_id, spawn_index.
    process: dict[str, Any] | None = None
    # Set when the trace was read from torch's own TORCH_TRACE log instead of recorded live
    # (tracers/torchlogs/): the log's file, the torch that wrote it, what a log cannot give, damage met reading it.
    from_log: dict[str, Any] | None = None
    # Per compile id, the calls its compiled graph served (the call that compiled it included); None: not counted.
    calls_served: dict[str, int] | None = None
    # Per compile id where Dynamo gave the frame up (a limit hit, a break it could not resume from): the frame's
    # calls that then ran eager; calls_note says why they could not be counted, where they were not.
    calls_eager: dict[str, int] = field(default_factory=dict)
    calls_note: str | None = None
    # --vs-eager / --profile: each compiled function's calls timed, compiled and eager, and the kernels profiled
    # (tracefile/runtime.py: SpeedRecord.as_json()); None when neither option was given.
    runtime: dict[str, Any] | None = None
    # A run of --check-fixes' own: the one fix it ran with (a Remedy's JSON, analysis/finding_type.py) and how many
    # times it took (settings made, torch.compile calls changed).
    applied_fix: dict[str, Any] | None = None
    # --check-fixes: each fix checked by running the script again with it (analysis/fix_checks.py: FixCheck.as_json()).
    fix_checks: list[dict[str, Any]] | None = None


@dataclass(slots=True)
class Trace:
    info: RunInfo
    spans: list[Span]
    artifacts: list[Artifact]
    deep_events: list[DeepEvent] = field(default_factory=list)
    executed_lines: dict[str, dict[int, int]] = field(default_factory=dict)  # torch path -> {line: count}


def rank_of(info: RunInfo) -> int | None:
    """The trace's rank, or None for a single-process trace."""
    rank: Any = (info.rank or {}).get("rank") if isinstance(info.rank, dict) else None
    return rank if isinstance(rank, int) and not isinstance(rank, bool) and 0 <= rank < MAX_RANKS else None
