"""``--profile``: a ``torch.profiler`` pass over a few steady-state calls of each compiled function, kernels by region."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from typing import Any

from tracers.tracefile.speed import WARMUP_CALLS as WARMUP
from tracers.tracefile.speed import KernelTime, ProfiledCalls, compiled_label

CALLS = 10  # calls profiled per compiled function
_REGION = "Torch-Compiled Region: "  # Dynamo's record_function around a frame's compiled code (convert_frame.py)
# The autograd engine's range around each node it runs ("autograd::engine::evaluate_function: <node>"): AOTAutograd's
# node runs the compiled backward (runtime_wrappers.py), which has no Dynamo region of its own.
_BACKWARD = "CompiledFunctionBackward"
_GRAPH = "## Call CompiledFxGraph"  # Inductor's around one compiled graph's call (output_code.py)
_CPP_PREFIX = re.compile(r"^graph_\d+_")  # cpp.enable_kernel_profile names a C++ kernel graph_<id>_<kernel>
_KERNEL = re.compile(r"^(cpp_|triton_|aten::)")


class ProfileWindow:
    """Told of every timed call; opens the profiler at a compiled function's first steady call after warm-up and
    closes it at the start of its call ``CALLS`` calls later (so the last profiled call's backward and the rest of
    its step are inside), or when the run ends. One window at a time; every call made while one is open is marked
    profiled (the profiler slows it), so the timings leave those calls out in both runs."""

    def __init__(self) -> None:
        self._profiler: Any = None
        self._owner: Any = None
        self._seen = 0
        self._call_ns = 0
        self._opened = 0  # perf_counter at the window's first call
        self._first = 0  # the owner's first profiled call
        self._done: set[int] = set()
        self.profiles: list[ProfiledCalls] = []
        self.notes: list[str] = []

    def before_call(self, calls: Any, index: int) -> bool:
        if self._profiler is not None and self._seen >= CALLS and (calls is self._owner or not self._pending()):
            self._finish()  # the owner's next call, or any call once its last backward ended: its steps are whole
            return False
        if self._profiler is not None:
            return True
        if id(calls) in self._done or index < (calls.compiling[-1] + 1 + WARMUP if calls.compiling else WARMUP):
            return False
        self._start(calls)
        return self._profiler is not None

    def after_call(self, calls: Any, index: int, took_ns: int) -> bool:
        if self._profiler is None:
            return False
        if calls is self._owner and self._seen < CALLS:
            self._seen += 1
            self._call_ns += took_ns
        return True

    def call_done(self, calls: Any) -> None:
        """After the owner's last profiled call has been watched: with no backward to wait for, close now (the
        window never runs on after the work it profiles, whatever the script does next)."""
        if self._profiler is not None and calls is self._owner and self._seen >= CALLS and not self._pending():
            self._finish()

    def _pending(self) -> bool:
        owner = self._owner
        return owner is not None and owner.backward is not None and owner.backward.pending(len(owner.host) - 1)

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
        self._opened, self._first = time.perf_counter_ns(), len(calls.host)

    def _finish(self) -> None:
        profiler, owner = self._profiler, self._owner
        self._profiler = self._owner = None
        window_ns = time.perf_counter_ns() - self._opened
        try:
            if owner.cuda:
                import torch

                torch.cuda.synchronize()  # the window's kernels finish inside it
                window_ns = time.perf_counter_ns() - self._opened
            profiler.__exit__(None, None, None)
            backward = owner.backward.host_times(range(self._first, self._first + self._seen)) \
                if owner.backward is not None else []
            self.profiles.append(_profiled(owner, self._seen, self._call_ns, profiler.events(), bool(owner.cuda),
                                           backward, window_ns))
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


def _region(event: Any) -> tuple[str | None, bool, bool, bool]:
    """The compile id of the compiled region holding ``event``, whether a compiled graph's call holds it, whether
    another op or kernel does (then it is that one's part, not a call the wrapper made), and whether AOTAutograd's
    backward node runs it (the compiled backward: no Dynamo region, so no compile id)."""
    in_graph = nested = False
    parent = event.cpu_parent
    while parent is not None:
        name = parent.name
        if name.startswith(_REGION):
            return name[len(_REGION):], in_graph, nested, False
        if _BACKWARD in name:
            return None, in_graph, nested, True
        if name.startswith(_GRAPH):
            in_graph = True
        elif not in_graph and _KERNEL.match(_CPP_PREFIX.sub("", name)):
            nested = True
        parent = parent.cpu_parent
    return None, in_graph, nested, False


def _profiled(owner: Any, calls: int, call_ns: int, events: Any, cuda: bool, backward: list[int],
              window_ns: int) -> ProfiledCalls:
    ops: dict[tuple[str, str | None, str], list[int]] = defaultdict(lambda: [0, 0])
    device: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    replays: dict[str, int] = defaultdict(int)
    streams: set[Any] = set()
    graph_ns = graph_calls = backward_graph_ns = 0
    for event in events:
        name = event.name
        if getattr(event.device_type, "name", "CPU") != "CPU":  # a GPU kernel: by name, for CUDA graph replays
            entry = device[name]
            entry[0] += 1
            entry[1] += round(event.device_time_total * 1000) if hasattr(event, "device_time_total") else 0
            streams.add(getattr(event, "device_resource_id", None))
            continue
        if name.startswith(_GRAPH):
            compile_id, _, _, in_backward = _region(event)
            if in_backward:
                backward_graph_ns += round(event.cpu_time_total * 1000)
            elif compile_id is not None or event.cpu_parent is None:
                graph_ns += round(event.cpu_time_total * 1000)
                graph_calls += 1
            continue
        if name == "cudaGraphLaunch":
            replays[_region(event)[0] or "?"] += 1
            continue
        bare = _CPP_PREFIX.sub("", name)
        if not _KERNEL.match(bare):
            continue
        compile_id, in_graph, nested, in_backward = _region(event)
        if not in_graph or nested:
            continue
        entry = ops[(bare, compile_id, "backward" if in_backward else "forward")]
        entry[0] += 1
        entry[1] += round((event.device_time_total if cuda else event.cpu_time_total) * 1000)
    kernels = [KernelTime(name, compile_id, count, total, "op", phase)
               for (name, compile_id, phase), (count, total) in ops.items()]
    kernels += [KernelTime(name, None, count, total, "device") for name, (count, total) in device.items()]
    return ProfiledCalls(owner.site, owner.order, calls, call_ns, graph_ns, graph_calls, tuple(kernels),
                         dict(replays), ("cpu", "cuda") if cuda else ("cpu",), sum(backward), len(backward),
                         backward_graph_ns, window_ns, max(1, len(streams - {None})))
