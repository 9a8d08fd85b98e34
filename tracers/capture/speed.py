"""Each call of what ``torch.compile`` returned, timed at its boundaries (``--vs-eager``, ``--profile``), in either run."""

from __future__ import annotations

import bisect
import functools
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from tracers.tracefile.speed import EAGER, TimedFunction, TimedRun

from . import backward_timing
from .backward_timing import BackwardTimer, NodeTypes, sampled
from .dynamo_shield import shield

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tracers/: never the user's line
_MARK = "__tracers_timed__"


class CompileProbe:
    """Counts the frame callbacks Dynamo made (a recorder listener), so a timed call knows it compiled."""

    def __init__(self, target: str):
        self._target = target
        self.count = 0
        self.compile_ids: list[str | None] = []  # by callback, in order (known once the callback returns)
        self._open: dict[int, int] = {}  # span id -> its slot in compile_ids

    def __call__(self, event: str, span: Any) -> None:
        if span.target != self._target:
            return
        if event == "enter":
            self._open[span.id] = self.count
            self.count += 1
            self.compile_ids.append(None)
        elif span.id in self._open:
            self.compile_ids[self._open.pop(span.id)] = span.compile_id


class _Calls:
    """One compiled object's calls: mutable while the run goes on, a ``TimedFunction`` at the end."""

    __slots__ = ("site", "order", "name", "host", "starts", "spent", "events", "compiling", "compile_ids", "profiled",
                 "cuda", "backward")

    def __init__(self, site: str, order: int, name: str):
        self.site, self.order, self.name = site, order, name
        self.host: list[int] = []
        self.starts: list[int] = []  # each call's start (perf_counter): successive starts make the loop's step
        self.spent: list[int] = []  # our own time after each call (marking or hooking its nodes): out of its wall step
        self.events: list[tuple[Any, Any]] = []  # CUDA (start, end) per call, once CUDA is in use
        self.backward: BackwardTimer | None = None
        self.compiling: list[int] = []
        self.compile_ids: list[str] = []
        self.profiled: list[int] = []
        self.cuda: bool | None = None  # decided at the first call: whether CUDA is initialised by then


class CallTimer:
    """Replaces ``torch.compile`` while installed: what it returns is timed per call (a module keeps its identity:
    its ``_compiled_call_impl`` slot, the one ``Module.compile()`` uses, is timed instead of wrapping it).

    ``probe`` (the traced run) marks the calls that compiled; ``window`` (``--profile``) is told each call's
    start and end. Per call: two clock reads, list appends, on CUDA two events recorded on the current stream (no
    synchronisation until ``stop``); with grad on, for the calls whose backward is timed (``sampled``), its
    autograd nodes marked or hooked (``BackwardTimer``)."""

    def __init__(self, mode: str, probe: CompileProbe | None = None, window: Any = None):
        self.mode = mode
        self._probe = probe
        self.window = window
        self._functions: list[_Calls] = []
        self._sites: dict[str, int] = {}
        self._modules: list[tuple[Any, Any, Any]] = []  # module, slot's previous value, our wrapper
        self._torch: Any = None
        self._real: Callable[..., Any] | None = None
        self._patched: Callable[..., Any] | None = None
        self._node_types = NodeTypes()  # AOTAutograd's backward node classes, timed once each
        self.note: str | None = None

    def install(self) -> None:
        import torch

        self._torch, self._real = torch, torch.compile
        # A compiled function called inside another compiled one, a backward run from a compiled frame: not traced into
        shield(sys.modules[__name__], backward_timing)
        timer = self

        @functools.wraps(self._real)
        def compile(model: Any = None, **kwargs: Any) -> Any:  # noqa: A001 - torch.compile's own name
            site = _user_site()
            if model is None:  # @torch.compile(mode=...): the decorator compiles later, at this same line
                return lambda fn: timer._compiled(fn, kwargs, site)
            return timer._compiled(model, kwargs, site)

        self._patched = compile
        torch.compile = compile

    def _compiled(self, model: Any, kwargs: dict[str, Any], site: str) -> Any:
        result = self._real(model, **kwargs)  # type: ignore[misc]
        order = self._sites.get(site, 0)
        self._sites[site] = order + 1
        calls = _Calls(site, order, _name_of(model))
        self._functions.append(calls)
        if isinstance(result, self._torch.nn.Module):
            # torch returns an OptimizedModule, or with compile off the module itself: its identity stays.
            previous = result.__dict__.get("_compiled_call_impl")
            wrapper = self._timed(previous if previous is not None else result._call_impl, calls)
            result._compiled_call_impl = wrapper
            self._modules.append((result, previous, wrapper))
            return result
        return functools.wraps(result)(self._timed(result, calls))

    def timing(self, function: Callable[..., Any], name: str,
               cuda: bool | None = None) -> tuple[Callable[..., Any], _Calls]:
        """``function`` behind the wrapper a compiled object gets, without ``torch.compile`` (the per-call timer's
        own measurements wrap a plain function so), and the calls it records. ``cuda=False``: no CUDA events."""
        if self._torch is None:
            import torch

            self._torch = torch
        calls = _Calls(f"{name}:0", 0, name)
        calls.cuda = cuda
        return self._timed(function, calls), calls

    def _timed(self, function: Callable[..., Any], calls: _Calls) -> Callable[..., Any]:
        probe, window, clock, host, starts = self._probe, self.window, time.perf_counter_ns, calls.host, calls.starts
        cuda_module, grad_enabled = self._torch.cuda, self._torch.is_grad_enabled
        calls.backward = backward = BackwardTimer(self._torch, self._node_types, dynamo=self.mode != EAGER)
        next_node = backward.next_node  # None: this torch numbers no nodes, no backward is timed

        def timed(*args: Any, **kwargs: Any) -> Any:
            if calls.cuda is None:
                calls.cuda = cuda_module.is_initialized()
                backward.cuda = calls.cuda
            before = probe.count if probe is not None else 0
            profiling = window is not None and window.before_call(calls, len(host))
            if calls.cuda:
                start, end = cuda_module.Event(enable_timing=True), cuda_module.Event(enable_timing=True)
                start.record()
            # backward.sequence(), inline; a call outside the sample (and the profile window) is not watched
            sequence = next_node() if next_node is not None and (profiling or sampled(len(host))) and grad_enabled() \
                else None
            result = None
            began = clock()
            try:
                result = function(*args, **kwargs)
                return result
            finally:
                took = clock() - began
                if calls.cuda:
                    end.record()
                    calls.events.append((start, end))
                index = len(host)
                host.append(took)
                starts.append(began)
                if sequence is not None:
                    backward.watch(index, sequence, result)
                calls.spent.append(clock() - began - took)
                if probe is not None and probe.count != before:
                    calls.compiling.append(index)
                    calls.compile_ids.extend(i for i in probe.compile_ids[before:probe.count] if i)
                if window is not None and (window.after_call(calls, index, took) or profiling):
                    calls.profiled.append(index)
                if window is not None:
                    window.call_done(calls)

        setattr(timed, _MARK, True)
        return timed

    def uninstall(self) -> None:
        """Put ``torch.compile``, every module's slot and every node class back (only where ours is still there)."""
        if self._torch is not None and self._torch.compile is self._patched:
            self._torch.compile = self._real
        self._node_types.restore()
        for module, previous, wrapper in reversed(self._modules):
            if module.__dict__.get("_compiled_call_impl") is wrapper:
                module._compiled_call_impl = previous
        self._modules.clear()

    def result(self) -> TimedRun:
        """The calls timed, CUDA events read (one synchronisation, now that the run is over)."""
        timer = "perf_counter"
        functions = []
        for calls in self._functions:
            device = steps = None
            if calls.events:
                timer = "cuda events"
                device, steps = self._event_times(calls)
            backward = calls.backward or BackwardTimer(self._torch)
            backward_host, backward_device = backward.times(len(calls.host))
            if backward.note:
                self.note = backward.note
            functions.append(TimedFunction(
                calls.site, calls.order, calls.name, tuple(calls.host), device, tuple(calls.compiling),
                tuple(dict.fromkeys(calls.compile_ids)), tuple(calls.profiled), backward_host,
                backward_device if device is not None else None,
                _wall_steps(calls), steps))
        return TimedRun(self.mode, tuple(functions), timer, note=self.note)

    def _event_times(self, calls: _Calls) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
        """Each call's time between its events, and each step's between successive calls' start events."""
        try:
            self._torch.cuda.synchronize()
            times = tuple(round(start.elapsed_time(end) * 1e6) for start, end in calls.events)
            steps = tuple(round(earlier.elapsed_time(later) * 1e6)
                          for (earlier, _), (later, _) in zip(calls.events, calls.events[1:]))
        except Exception as error:  # noqa: BLE001 - a failed device: wall time stands, said so
            self.note = f"CUDA event times unreadable ({type(error).__name__}: {error}); wall time shown"
            return None, None
        if len(times) != len(calls.host):  # CUDA came into use after the first call: events for some calls only
            return None, None
        return times, steps


def _wall_steps(calls: _Calls) -> tuple[int, ...]:
    """Each call's start to the next's, less the tracer's own work in it: after each call, and the walks over an eager
    forward's autograd nodes made when its backward started, each in the step it fell in (a walk can take a
    millisecond for a 700-node graph; the CPU does it in the script's time, so it leaves it out). CUDA events' steps
    keep it: the GPU runs on meanwhile, and whether it waited cannot be told from here."""
    steps = [later - earlier - spent for earlier, later, spent in zip(calls.starts, calls.starts[1:], calls.spent)]
    for began, took in calls.backward.walks if calls.backward is not None else ():
        step = bisect.bisect_right(calls.starts, began) - 1
        if 0 <= step < len(steps):
            steps[step] -= took
    return tuple(steps)


def _user_site() -> str:
    """The line that called torch.compile: the first frame outside torch and this package (``module.compile()``
    is torch's own frame calling torch.compile: its caller is the user's)."""
    torch_dir = os.path.dirname(sys.modules["torch"].__file__ or "")
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not (path.startswith(torch_dir) or path.startswith(_PACKAGE) or path.startswith("<frozen")):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return "?:0"


def _name_of(model: Any) -> str:
    bound = getattr(model, "__self__", None)
    if bound is not None and getattr(model, "__name__", "") in ("_call_impl", "__call__", "forward"):
        return type(bound).__name__  # module.compile() compiles the module's bound _call_impl
    if isinstance(model, type) or not hasattr(model, "__qualname__"):
        return type(model).__name__
    return model.__qualname__
