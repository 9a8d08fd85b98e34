"""What ``--vs-eager`` and ``--profile`` record: each compiled function's calls timed, per run, and the kernels profiled."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

COMPILED, EAGER = "compiled", "eager"
# Calls after a compiling call that are not steady state yet, in both runs: CUDA graph trees warm up and record,
# autotuning and the caching allocator settle (the profiler leaves them alone too).
WARMUP_CALLS = 3
NO_BACKWARD = -1  # a call whose autograd nodes never ran backward (no grad, eval, or the run ended first), or whose
# backward was not timed (a long run's calls outside the sample: tracers/capture/backward_timing.py)


def compiled_label(name: str, site: str) -> str:
    """How a compiled object is named to the user: ``step (train.py:12)``, its torch.compile line's file and line."""
    return f"{name} ({site.rsplit('/', 1)[-1]})"


@dataclass(frozen=True)
class TimedFunction:
    """One object ``torch.compile`` returned and every call the script made of it, in order."""

    site: str  # ``path:line`` of the torch.compile call (the user's line, also for ``module.compile()``)
    order: int  # the n-th torch.compile call made at that line: with the site, what the two runs match on
    name: str  # what was compiled: a function's qualified name, a module's class
    host_ns: tuple[int, ...]  # each call's wall time (perf_counter at the call's boundaries)
    device_ns: tuple[int, ...] | None = None  # on CUDA: time between CUDA events recorded at the call's boundaries
    compiling: tuple[int, ...] = ()  # calls during which Dynamo's frame callback ran (compiled, or decided not to)
    compile_ids: tuple[str, ...] = ()  # the compiles those calls made
    profiled: tuple[int, ...] = ()  # calls made while the profiler ran (slowed by it: left out of the timings)
    # Each call's backward, where one ran: from the first of the autograd nodes the call made starting to the last
    # finishing (the compiled graph's: AOTAutograd's CompiledFunctionBackward); NO_BACKWARD where none was timed.
    backward_host_ns: tuple[int, ...] = ()
    backward_device_ns: tuple[int, ...] | None = None  # the same between CUDA events recorded in those node hooks
    # From each call's start to the next one's: the user's loop step when called once a step (wall time, and on CUDA
    # between the events recorded at the calls' starts); one fewer than the calls.
    step_host_ns: tuple[int, ...] = ()
    step_device_ns: tuple[int, ...] | None = None

    @property
    def key(self) -> tuple[str, int]:
        return self.site, self.order

    @property
    def backward_ns(self) -> tuple[int, ...]:
        """Each call's backward time that counts (CUDA events' where recorded), NO_BACKWARD where none ran."""
        return self.backward_device_ns if self.backward_device_ns is not None else self.backward_host_ns

    @property
    def step_ns(self) -> tuple[int, ...]:
        """Each interval between successive calls that counts (CUDA events' where recorded)."""
        return self.step_device_ns if self.step_device_ns is not None else self.step_host_ns

    @property
    def calls(self) -> int:
        return len(self.host_ns)

    @property
    def times_ns(self) -> tuple[int, ...]:
        """The per-call times that count: CUDA events' where recorded, else wall time."""
        return self.device_ns if self.device_ns is not None else self.host_ns

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimedFunction:
        device = data.get("device_ns")
        optional = {name: tuple(data[name]) if data.get(name) is not None else None
                    for name in ("backward_device_ns", "step_device_ns")}
        return cls(str(data["site"]), int(data["order"]), str(data.get("name", "?")), tuple(data["host_ns"]),
                   tuple(device) if device is not None else None, tuple(data.get("compiling", ())),
                   tuple(data.get("compile_ids", ())), tuple(data.get("profiled", ())),
                   tuple(data.get("backward_host_ns", ())), optional["backward_device_ns"],
                   tuple(data.get("step_host_ns", ())), optional["step_device_ns"])


@dataclass(frozen=True)
class TimedRun:
    """One run's timed functions: the traced (compiled) run, or the script run again with compile off."""

    mode: str  # COMPILED or EAGER
    functions: tuple[TimedFunction, ...]
    timer: str = "perf_counter"  # "cuda events" once CUDA was in use
    status: str = "ok"  # the run's end: ok, exit, error, interrupted, terminated, failed (did not start), timeout
    exit_code: int | None = 0
    note: str | None = None  # why the run is missing or partial, in one line

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimedRun:
        return cls(str(data["mode"]), tuple(TimedFunction.from_json(item) for item in data.get("functions", ())),
                   str(data.get("timer", "perf_counter")), str(data.get("status", "ok")), data.get("exit_code"),
                   data.get("note"))


@dataclass(frozen=True)
class KernelTime:
    """One kernel (or extern op) seen by the profiler over a function's profiled calls."""

    name: str  # as the output code names it: cpp_fused_…, triton_…, or an aten op (aten::addmm) the wrapper called
    compile_id: str | None  # the compiled region (``Torch-Compiled Region: 0/0``) it ran in, where the profiler says
    count: int
    total_ns: int  # device time on CUDA, CPU time (inclusive) on the CPU
    side: str = "op"  # "op": the call the wrapper made (in its region); "device": a GPU kernel seen by name only
    phase: str = "forward"  # "backward": run by AOTAutograd's CompiledFunctionBackward, when .backward() ran


@dataclass(frozen=True)
class ProfiledCalls:
    """A ``torch.profiler`` pass over some steady-state calls of one compiled function."""

    site: str
    order: int
    calls: int  # the calls the profiler saw
    call_ns: int  # their wall time together
    graph_ns: int  # of it, time inside compiled graphs (``## Call CompiledFxGraph`` ranges), 0 where none ran
    graph_calls: int
    kernels: tuple[KernelTime, ...]
    cudagraph_replays: dict[str, int] = field(default_factory=dict)  # compile id -> cudaGraphLaunch calls seen
    activities: tuple[str, ...] = ("cpu",)
    backward_ns: int = 0  # the profiled calls' backward time together (wall, as the node hooks timed it)
    backward_calls: int = 0  # of the profiled calls, those whose backward ran inside the window
    backward_graph_ns: int = 0  # of the backward time, inside compiled graphs
    window_ns: int = 0  # the window's wall time: first profiled call's start to the window's close (whole steps)
    streams: int = 1  # CUDA streams the profiled kernels ran on: kernel time can exceed wall time when above 1

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfiledCalls:
        return cls(str(data["site"]), int(data["order"]), int(data["calls"]), int(data["call_ns"]),
                   int(data.get("graph_ns", 0)), int(data.get("graph_calls", 0)),
                   tuple(KernelTime(**item) for item in data.get("kernels", ())),
                   dict(data.get("cudagraph_replays") or {}), tuple(data.get("activities", ("cpu",))),
                   int(data.get("backward_ns", 0)), int(data.get("backward_calls", 0)),
                   int(data.get("backward_graph_ns", 0)), int(data.get("window_ns", 0)), int(data.get("streams", 1)))


@dataclass(frozen=True)
class SpeedRecord:
    """``RunInfo.runtime``: the compiled run's timings, the eager run's (``--vs-eager``), the profiler's (``--profile``)."""

    compiled: TimedRun
    eager: TimedRun | None = None
    profiles: tuple[ProfiledCalls, ...] = ()
    profile_note: str | None = None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> SpeedRecord | None:
        if not data or "compiled" not in data:
            return None
        eager = data.get("eager")
        return cls(TimedRun.from_json(data["compiled"]), TimedRun.from_json(eager) if eager else None,
                   tuple(ProfiledCalls.from_json(item) for item in data.get("profiles", ())), data.get("profile_note"))
