"""Calls each compiled code served, calls that ran eager once Dynamo gave a frame up (no span per call), skip reasons."""

from __future__ import annotations

import importlib.util
import linecache
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracers.tracefile.events import Trace
from tracers.tracefile.scrub import installed_into

from . import eager_calls
from .dynamo_shield import shield
from .eager_calls import EntryCalls
from .recorder import TAKES_KEYWORDS, Recorder

COMPILE = "torch:compile"  # the stages table's target for torch.compile itself
TARGET = "torch._dynamo.convert_frame:ConvertFrame.__call__"  # Dynamo's frame callback: (self, frame, ...)
_GRAPH_PREFIX = "__compiled_fn"  # the name Dynamo installs each compiled graph under in the frame's globals
_GAVE_UP = ("RUN_ONLY", "SKIP")  # FrameAction names: on a cache miss the frame now runs eagerly, uncompiled
_TOOL_NAME = "torch-compile-walkthrough"
_VERSION = re.compile(r"(.*\d)/(\d+)")  # ``0/4``: the frame's number, the version's


def _counting(graph: Callable[..., Any], cell: list[int]) -> Callable[..., Any]:
    """``graph`` with a call count in front of it: one list increment per call, nothing else. Dynamo's code
    calls its graphs with positional arguments only (codegen's make_call_generated_code), so no keyword
    dict is built per call."""

    def counted(*args: Any) -> Any:
        cell[0] += 1
        return graph(*args)

    counted.__tracers_counted__ = True  # type: ignore[attr-defined]
    counted.__wrapped__ = graph  # type: ignore[attr-defined]
    return counted


class CallCounter:
    """After each frame callback, wraps the graphs Dynamo just installed so their calls are counted (the call
    that compiled one included), and, where Dynamo gave a frame up (recompile limit, an unresumable break),
    counts the frame's later eager calls: with ``sys.monitoring`` (Python 3.12+), else through what
    torch.compile returned (capture/eager_calls.py). Every wrapper is taken out at ``stop``; the compiled code
    keeps working with its own graphs. A session's collector (capture/collector.py)."""

    what = "the call counts"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self._served: dict[str, list[int]] = {}
        self._eager: dict[str, list[int]] = {}
        self._installed: list[tuple[dict[str, Any], str, Any, Any]] = []  # globals, name, graph, wrapper
        self._watched: dict[Any, list[int]] = {}  # code object -> its eager-call cell
        self._code_ids: dict[Any, list[str]] = {}  # code object -> the compile ids whose graphs are counted
        self._entries = EntryCalls()  # where sys.monitoring is missing
        self._tool: int | None = None
        self._shielded = False
        self._before: dict[int, set[str]] = {}  # open callback's span id -> the graphs its frame's globals held
        self.note: str | None = None

    def start(self) -> None:
        self.recorder.argument_observers[COMPILE] = _compile_called
        self.recorder.argument_observers[TARGET] = self._before_callback
        self.recorder.result_observers[TARGET] = self._after_callback
        if getattr(sys, "monitoring", None) is None:
            self._entries.install(self.recorder)

    def _before_callback(self, recorder: Recorder, args: tuple[Any, ...]) -> None:
        """Note the graphs already installed (by compiles before the session, too): only new ones are this one's."""
        span = recorder.current_span()
        scope = getattr(args[1] if len(args) > 1 else None, "f_globals", None)
        if span is not None and isinstance(scope, dict):
            self._before[span.id] = {name for name in scope if name.startswith(_GRAPH_PREFIX)}

    def _after_callback(self, recorder: Recorder, args: tuple[Any, ...], result: Any) -> None:
        if not self._shielded:  # the wrappers run inside compiled code: Dynamo must not compile them
            self._shielded = shield(sys.modules[__name__], eager_calls)
        span = recorder.current_span()
        compile_id = span.compile_id if span is not None else None
        frame = args[1] if len(args) > 1 else None
        scope = getattr(frame, "f_globals", None)
        before = self._before.pop(span.id, None) if span is not None else None
        if compile_id is None or not isinstance(scope, dict) or before is None:
            # Dynamo skipped the frame before compiling anything: nothing of it to count, but its reason to keep.
            reason = getattr(result, "skip_reason", None)
            if span is not None and isinstance(reason, str):
                span.skip_reason = reason
            return
        for name, value in list(scope.items()):
            if name.startswith(_GRAPH_PREFIX) and name not in before and callable(value) \
                    and not getattr(value, "__tracers_counted__", False):
                if compile_id not in self._served:
                    self._code_ids.setdefault(getattr(frame, "f_code", None), []).append(compile_id)
                cell = self._served.setdefault(compile_id, [0])
                wrapper = _counting(value, cell)
                scope[name] = wrapper
                self._installed.append((scope, name, value, wrapper))
        strategy = getattr(result, "frame_exec_strategy", None)
        action = getattr(getattr(strategy, "cur_action", None), "name", None)
        if action in _GAVE_UP:
            self._watch_eager(getattr(frame, "f_code", None), compile_id)

    def _watch_eager(self, code: Any, compile_id: str) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if code is None or code in self._watched:
            return
        if monitoring is None:
            if not self._all_counted(compile_id):
                # a version that compiled no graph of its own still serves calls (its resume functions' graphs do
                # the work): counted by calls of the entry, those calls would be said to run eager
                self.note = ("calls that ran eager are not counted on Python 3.11 for a frame whose versions "
                             "compiled no graph of their own (3.12 and newer count them)")
                return
            if not self._entries.watch(code, compile_id, self._served_by(code)):
                self.note = ("calls that ran eager are counted on Python 3.11 only for the function or module that "
                             "torch.compile returned in the trace (3.12 and newer count every frame)")
            return
        if self._tool is None and not self._claim_tool(monitoring):
            return
        # The watch starts before the frame that made Dynamo give up runs (eagerly), so that call counts too.
        self._watched[code] = self._eager.setdefault(compile_id, [0])
        monitoring.set_local_events(self._tool, code, monitoring.events.PY_START)

    def _all_counted(self, compile_id: str) -> bool:
        """Every earlier version of the frame installed a graph whose calls are counted."""
        found = _VERSION.fullmatch(compile_id)
        if found is None:
            return False
        frame, version = found.group(1), int(found.group(2))
        return all(f"{frame}/{earlier}" in self._served for earlier in range(version))

    def _served_by(self, code: Any) -> int:
        return sum(self._served[compile_id][0] for compile_id in self._code_ids.get(code, ()))

    def _claim_tool(self, monitoring: Any) -> bool:
        for tool in (monitoring.PROFILER_ID, monitoring.OPTIMIZER_ID, 3, 4):
            if monitoring.get_tool(tool) is None:
                monitoring.use_tool_id(tool, _TOOL_NAME)
                monitoring.register_callback(tool, monitoring.events.PY_START, self._started)
                self._tool = tool
                return True
        self.note = "calls that ran eager were not counted: every sys.monitoring tool id is taken"
        return False

    def _started(self, code: Any, offset: int) -> Any:
        cell = self._watched.get(code)
        if cell is not None:
            cell[0] += 1
        return None

    def stop(self) -> None:
        """Put every graph back where Dynamo installed it, and release the monitoring tool."""
        self._before.clear()  # callbacks that raised never reached _after_callback
        for scope, name, graph, wrapper in reversed(self._installed):
            if scope.get(name) is wrapper:
                scope[name] = graph
        self._installed.clear()
        self._entries.stop()
        if self._tool is not None:
            monitoring = sys.monitoring
            for code in self._watched:
                monitoring.set_local_events(self._tool, code, 0)
            monitoring.register_callback(self._tool, monitoring.events.PY_START, None)
            monitoring.free_tool_id(self._tool)
            self._tool = None

    def contribute(self, trace: Trace) -> None:
        trace.info.calls_served, trace.info.calls_eager, trace.info.calls_note = self.served, self.eager, self.note

    @property
    def served(self) -> dict[str, int]:
        return {compile_id: cell[0] for compile_id, cell in self._served.items()}

    @property
    def eager(self) -> dict[str, int]:
        counted = {compile_id: cell[0] for compile_id, cell in self._eager.items()}
        return {**counted, **self._entries.eager(self._served_by)}


def _compile_called(recorder: Recorder, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """File where the user's code called torch.compile, and the arguments a finding's cause or fix names
    (``dynamic=False`` keeps every size static; a finding that nothing compiled names the line)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith((_SKIP, *_TORCH)):
        frame = frame.f_back
    if frame is not None:
        line = frame.f_lineno
        code = linecache.getline(frame.f_code.co_filename, line).strip()
        passed = {key: kwargs[key] for key in COMPILE_ARGUMENTS
                  if key in kwargs and (kwargs[key] is None or isinstance(kwargs[key], (bool, str)))}
        # A library that calls torch.compile for the user (the Trainer, accelerate): its line, and the user's below it
        # and the library function that line called (the Trainer's train() where accelerate made the call)
        user, entry = frame, frame
        folders = tuple(folder.rstrip("/") + "/" for folder in installed_into())
        while user is not None and _installed(user.f_code.co_filename, folders):
            if not user.f_code.co_filename.startswith((*_TORCH, _STDLIB)):
                entry = user  # torch's own wrappers on the way (generate()'s @torch.no_grad()) are not whom it called
            user = user.f_back
        via = {"user": {"filename": user.f_code.co_filename, "line": user.f_lineno, "name": user.f_code.co_name,
                        "loc": linecache.getline(user.f_code.co_filename, user.f_lineno).strip()},
               "entry": {"filename": entry.f_code.co_filename, "name": _qualified(entry)}} \
            if user is not None and user is not frame else {}
        recorder.add_artifact("compile-call", "torch.compile", None, {
            "filename": frame.f_code.co_filename, "line": line, "name": frame.f_code.co_name, "loc": code,
            "arguments": passed, **via, **_compiled_code(args[0] if args else None)}, None, 0)


def _qualified(frame: Any) -> str:
    """``Trainer.train`` for a method's frame (Python 3.11 names the class), else the function's name."""
    return getattr(frame.f_code, "co_qualname", frame.f_code.co_name)


def _installed(path: str, folders: tuple[str, ...]) -> bool:
    """An installed package's file or the standard library's: not the user's code (one in ``folders`` too: where pip
    put packages on PYTHONPATH with ``--target``, as the trace file's scrubbing has them)."""
    return "site-packages" in path or "dist-packages" in path or path.startswith(_STDLIB) or path.startswith("<") \
        or path.startswith(folders)


def _compiled_code(target: Any) -> dict[str, Any]:
    """Where the code torch.compile was given starts (a module's forward's), so a compile's frame finds its call.
    A module's own ``__call__`` (``torch.compile(model.__call__)``, as transformers' generate() does) is named as the
    model's call, not torch's ``Module._wrapped_call_impl``, and found by its forward."""
    owner = getattr(target, "__self__", None)
    called = getattr(getattr(target, "__func__", None), "__name__", "")
    if hasattr(owner, "_call_impl") and called in _MODULE_CALLS:
        forward = getattr(type(owner), "forward", None)
        code = getattr(forward, "__code__", None)
        return {"compiled": {"filename": code.co_filename, "line": code.co_firstlineno,
                             "name": f"{type(owner).__qualname__}.__call__"}} if code is not None else {}
    function = getattr(type(target), "forward", None) if hasattr(target, "_call_impl") else target
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return {}
    return {"compiled": {"filename": code.co_filename, "line": code.co_firstlineno,
                         "name": getattr(function, "__qualname__", code.co_name)}}


_MODULE_CALLS = ("_wrapped_call_impl", "_call_impl", "__call__")  # torch.nn.Module's own call, by release


setattr(_compile_called, TAKES_KEYWORDS, True)
COMPILE_ARGUMENTS = ("dynamic", "fullgraph", "mode", "backend")  # torch.compile's own, kept where plain values


_SKIP = str(Path(__file__).resolve().parent.parent)  # the tracer's own frames: the hook that calls the observer

_STDLIB = str(Path(linecache.__file__).resolve().parent)


def _torch_dirs() -> tuple[str, ...]:
    """torch's own package folder, as imported and resolved: a venv under /opt/torch/ is no part of it (its other
    packages are libraries)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return ()
    folder = Path(spec.origin).parent
    return tuple(dict.fromkeys((str(folder) + os.sep, str(folder.resolve()) + os.sep)))


_TORCH = _torch_dirs()
