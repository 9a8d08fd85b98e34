"""Methods of a module called through what torch.compile returned (``compiled.generate(...)``): torch's wrapper hands
every attribute it lacks to the module it wraps, so such a method is the original module's, and its own calls of
the model run the uncompiled forward. A session's collector: it wraps the wrapper's ``__getattr__`` while tracing
and puts torch's own back at stop."""

from __future__ import annotations

import importlib
import inspect
import linecache
import sys
from typing import Any

from .collector import Warnings
from .recorder import Recorder

ARTIFACT = "forwarded_method"
_MODULE, _CLASS = "torch._dynamo.eval_frame", "OptimizedModule"
_KEPT = 64  # (method, line) places recorded: a program's, not a loop's every access


class ForwardedMethods:
    """Records each (method, calling line) once: the method's name, the module's class, the line."""

    what = "the module methods called through torch.compile's wrapper"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self._class: Any = None
        self._original: Any = None
        self._wrapper: Any = None
        self._seen: set[tuple[str, str, int]] = set()

    def start(self) -> Warnings:
        try:
            wrapper_class = getattr(importlib.import_module(_MODULE), _CLASS, None)
        except ImportError:
            return None
        original = vars(wrapper_class).get("__getattr__") if wrapper_class is not None else None
        if original is None:
            return None
        seen, recorder = self._seen, self.recorder
        compiling = importlib.import_module("torch.compiler").is_compiling

        def __getattr__(wrapped: Any, name: str) -> Any:
            if compiling():  # read inside compiled code: Dynamo traces torch's own lookup, as without the tracer
                return original(wrapped, name)
            value = original(wrapped, name)
            if not name.startswith("_") and inspect.ismethod(value) and len(seen) < _KEPT:
                caller = sys._getframe(1)
                place = (name, caller.f_code.co_filename, caller.f_lineno)
                owner = vars(wrapped).get("_modules", {}).get("_orig_mod")
                if place not in seen and owner is not None and value.__self__ is owner:
                    seen.add(place)
                    recorder.add_artifact("forwarded-method", ARTIFACT, None, {
                        "method": name, "module": type(owner).__name__, "filename": place[1], "line": place[2],
                        "loc": linecache.getline(place[1], place[2]).strip()}, None, 0)
            return value

        wrapper_class.__getattr__ = __getattr__
        self._class, self._original, self._wrapper = wrapper_class, original, __getattr__
        return None

    def stop(self) -> Warnings:
        """Put torch's ``__getattr__`` back (only where ours is still the one there)."""
        if self._class is not None and vars(self._class).get("__getattr__") is self._wrapper:
            self._class.__getattr__ = self._original
        self._class = self._original = self._wrapper = None
        self._seen.clear()
        return None

    def contribute(self, trace: Any) -> None:
        pass
