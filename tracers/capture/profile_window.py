"""``--profile``: a ``torch.profiler`` pass over a few steady-state calls of each compiled function, kernels by region."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from tracers.tracefile.speed import WARMUP_CALLS as WARMUP
from tracers.tracefile.speed import KernelTime, ProfiledCalls, compiled_label

CALLS = 10  # calls profiled per compiled function
_REGION = "Torch-Compiled Region: "  # Dynamo's record_function around a frame's compiled code (convert_frame.py)
_GRAPH = "## Call CompiledFxGraph"  # Inductor's around one compiled graph's call (output_code.py)
_CPP_PREFIX = re.compile(r"^graph_\d+_")  # cpp.enable_kernel_profile names a C++ kernel graph_<id>_<kernel>
_KERNEL = re.compile(r"^(cpp_|triton_|aten::)")


class ProfileWindow:
    """Told of every timed call; opens the profiler at a compiled function's first steady call after warm-up and
    closes it ``CALLS`` calls later. One window at a time; every call made while one is open is marked profiled
    (the profiler slows it), so the timings leave those calls out in both runs."""

    def __init__(self) -> None:
        self._profiler: Any = None
        self._owner: Any = None
        self._seen = 0
        self._call_ns = 0
        self._done: set[int] = set()
        self.profiles: list[ProfiledCalls] = []
        self.notes: list[str] = []

    def before_call(self, calls: Any, index: int) -> bool:
        if self._profiler is not None:
            return True
        if id(calls) in self._done or index < (calls.compiling[-1] + 1 + WARMUP if calls.compiling else WARMUP):
            return False
        self._start(calls)
        return self._profiler is not None

    def after_call(self, calls: Any, index: int, took_ns: int) -> bool:
        if self._profiler is None:
            return False
        if calls is self._owner:
            self._seen += 1
            self._call_ns += took_ns
            if self._seen >= CALLS:
                self._finish()
        return True

    def _start(self, calls: Any) -> None:
        from torch.profiler import ProfilerActivity, profile

        self._done.add(id(calls))
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if calls.cuda else [])
        try:
            profiler = profile(activities=activities)
            profiler.__enter__()
        except Exception as error:  # noqa: BLE001 - another profiler running, say: no profile, the run goes on
            self.notes.append(f"{calls.name}: the profiler could not start ({type(error).__name__}: {error})")
            return
        self._profiler, self._owner, self._seen, self._call_ns = profiler, calls, 0, 0

    def _finish(self) -> None:
        profiler, owner = self._profiler, self._owner
        self._profiler = self._owner = None
        try:
            profiler.__exit__(None, None, None)
            self.profiles.append(_profiled(owner, self._seen, self._call_ns, profiler.events(), bool(owner.cuda)))
        except Exception as error:  # noqa: BLE001 - the profile is lost, the run is not
            self.notes.append(f"{owner.name}: the profile could not be read ({type(error).__name__}: {error})")

    def stop(self, functions: list[Any]) -> None:
        """The run ended: close an open window (fewer calls than asked), say which functions were not profiled."""
        if self._profiler is not None:
            self._finish()
        for calls in functions:
            if id(calls) not in self._done and calls.host:
                self.notes.append(f"{compiled_label(calls.name, calls.site)}: not profiled, "
                                  f"{len(calls.host)} calls leave no steady call after warm-up")


def _region(event: Any) -> tuple[str | None, bool, bool]:
    """The compile id of the compiled region holding ``event``, whether a compiled graph's call holds it, and
    whether another op or kernel does (then it is that one's part, not a call the wrapper made)."""
    in_graph = nested = False
    parent = event.cpu_parent
    while parent is not None:
        name = parent.name
        if name.startswith(_REGION):
            return name[len(_REGION):], in_graph, nested
        if name.startswith(_GRAPH):
            in_graph = True
        elif not in_graph and _KERNEL.match(_CPP_PREFIX.sub("", name)):
            nested = True
        parent = parent.cpu_parent
    return None, in_graph, nested


def _profiled(owner: Any, calls: int, call_ns: int, events: Any, cuda: bool) -> ProfiledCalls:
    ops: dict[tuple[str, str | None], list[int]] = defaultdict(lambda: [0, 0])
    device: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    replays: dict[str, int] = defaultdict(int)
    graph_ns = graph_calls = 0
    for event in events:
        name = event.name
        if getattr(event.device_type, "name", "CPU") != "CPU":  # a GPU kernel: by name, for CUDA graph replays
            entry = device[name]
            entry[0] += 1
            entry[1] += round(event.device_time_total * 1000) if hasattr(event, "device_time_total") else 0
            continue
        if name.startswith(_GRAPH):
            if _region(event)[0] is not None or event.cpu_parent is None:
                graph_ns += round(event.cpu_time_total * 1000)
                graph_calls += 1
            continue
        if name == "cudaGraphLaunch":
            replays[_region(event)[0] or "?"] += 1
            continue
        bare = _CPP_PREFIX.sub("", name)
        if not _KERNEL.match(bare):
            continue
        compile_id, in_graph, nested = _region(event)
        if not in_graph or nested:
            continue
        entry = ops[(bare, compile_id)]
        entry[0] += 1
        entry[1] += round((event.device_time_total if cuda else event.cpu_time_total) * 1000)
    kernels = [KernelTime(name, compile_id, count, total) for (name, compile_id), (count, total) in ops.items()]
    kernels += [KernelTime(name, None, count, total, "device") for name, (count, total) in device.items()]
    return ProfiledCalls(owner.site, owner.order, calls, call_ns, graph_ns, graph_calls, tuple(kernels),
                         dict(replays), ("cpu", "cuda") if cuda else ("cpu",))
