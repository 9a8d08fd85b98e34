"""One fix applied to a run of the user's script, its code untouched (``trace --check-fixes`` runs the script again
with each): a setting of torch's config, an argument of the user's torch.compile call, a logging function ignored or
reordered. Every change is undone at stop."""

from __future__ import annotations

import builtins
import importlib
import sys
from pathlib import Path
from typing import Any

from .collector import Warnings
from .recorder import Recorder

# Before each frame compile the fix is set again: the script may set the same setting itself after the run starts
# (torch._dynamo.config.automatic_dynamic_shapes = False at its top), and the fix is what stands for this run.
TARGET = "torch._dynamo.convert_frame:ConvertFrameAssert.__call__"
_OWN = str(Path(__file__).resolve().parent.parent)  # the tracer's frames, between the user's call and this wrapper
_UNSET = object()
# The logging kinds of fix: the set of torch._dynamo.config each adds the call's function to.
LOGGING_SETS = {"ignore-logging": "ignore_logging_functions", "reorder-logging": "reorderable_logging_functions"}


def _caller() -> tuple[str, int]:
    """The file name and line of the first frame outside the tracer and torch: the user's call."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith(_OWN) or "/torch/" in frame.f_code.co_filename):
        frame = frame.f_back
    return (Path(frame.f_code.co_filename).name, frame.f_lineno) if frame is not None else ("", 0)


class FixApplied:
    """A session's collector (capture/collector.py) for ``--apply-fix``: ``fix`` is a Remedy's JSON
    (analysis/finding_type.py)."""

    what = "the fix being checked"

    def __init__(self, recorder: Recorder, fix: dict[str, Any]):
        self.recorder, self.fix = recorder, fix
        self._undo: list[tuple[Any, str, Any]] = []  # (owner, attribute, value before)
        self._ignored: list[Any] = []  # logging functions added to the config's set (LOGGING_SETS)
        self.applied = 0  # calls of torch.compile the argument was changed in, settings made, functions found

    def start(self) -> Warnings:
        kind = self.fix.get("kind")
        if kind == "setting":
            self._set()
        elif kind == "compile-argument":
            self._wrap_compile()
        elif kind not in LOGGING_SETS:
            return [f"--apply-fix: unknown kind of fix {kind!r}"]
        self.recorder.argument_observers[TARGET] = self._before_compile
        return None

    def _setting(self) -> tuple[Any, str]:
        module, _, name = str(self.fix.get("name")).rpartition(".")
        return importlib.import_module(module), name

    def _set(self) -> None:
        owner, name = self._setting()
        if not any(done[0] is owner and done[1] == name for done in self._undo):
            self._undo.append((owner, name, getattr(owner, name, _UNSET)))
        setattr(owner, name, self.fix.get("value"))
        self.applied = 1

    def _before_compile(self, _recorder: Recorder, _args: tuple[Any, ...]) -> None:
        if self.fix.get("kind") == "setting":
            self._set()
        elif self.fix.get("kind") in LOGGING_SETS and not self._ignored:
            function = self._logging_function()
            if function is not None:
                self._logging_set().add(function)
                self._ignored.append(function)
                self.applied = 1

    def _logging_set(self) -> set[Any]:
        import torch._dynamo.config as config

        return getattr(config, LOGGING_SETS[str(self.fix.get("kind"))])

    def _logging_function(self) -> Any:
        """``logger.info`` as the module at the fix's file names it (its globals; ``print``: the builtin), or None
        until it is imported."""
        name = str(self.fix.get("name"))
        if "." not in name and callable(getattr(builtins, name, None)):
            return getattr(builtins, name)
        wanted = Path(str(self.fix.get("file") or "")).name
        for module in list(sys.modules.values()):
            if Path(str(getattr(module, "__file__", "") or "")).name != wanted:
                continue
            value: Any = vars(module)
            for part in str(self.fix.get("name")).split("."):
                value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
                if value is None:
                    break
            if callable(value):
                return value
        return None

    def _wrap_compile(self) -> None:
        import torch

        original = torch.compile
        fix, applier = self.fix, self
        wanted = (Path(str(fix.get("file") or "")).name, fix.get("line"))

        def compile_with_fix(*args: Any, **kwargs: Any) -> Any:
            if _caller() == wanted:
                if fix.get("drop"):
                    kwargs.pop(str(fix["name"]), None)
                else:
                    kwargs[str(fix["name"])] = fix.get("value")
                applier.applied += 1
            return original(*args, **kwargs)

        compile_with_fix.__wrapped__ = original  # type: ignore[attr-defined]
        self._undo.append((torch, "compile", original))
        torch.compile = compile_with_fix

    def stop(self) -> Warnings:
        self.recorder.argument_observers.pop(TARGET, None)
        for owner, name, before in reversed(self._undo):
            if before is _UNSET:
                delattr(owner, name)
            else:
                setattr(owner, name, before)
        self._undo.clear()
        if self._ignored:
            for function in self._ignored:
                self._logging_set().discard(function)
            self._ignored.clear()
        return None

    def contribute(self, trace: Any) -> None:
        trace.info.applied_fix = {**self.fix, "applied": self.applied}
