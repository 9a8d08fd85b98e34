"""Module hooks added after a module's forward was last compiled: compiled code that does not run them (torch skips
guards on module hooks by default, ``skip_nnmodule_hook_guards``), so the program silently runs without them."""

from __future__ import annotations

import weakref
from typing import Any

from .collector import Warnings
from .recorder import Recorder

TARGET = "torch._dynamo.convert_frame:_compile"  # (code, globals, locals, ...): the frame being compiled
ARTIFACT = "late_hooks"
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_KIND = {"_forward_hooks": "forward hook", "_forward_pre_hooks": "forward pre-hook",
         "_backward_hooks": "backward hook", "_backward_pre_hooks": "backward pre-hook"}
_MODULES_KEPT = 4096  # submodules looked at per compiled module: a model's, not a pathological one's
_HOOKS_SAID = 16


def _hooks(module: Any) -> dict[tuple[str, str], set[int]]:
    """(submodule path, hook dict) -> the ids of the hooks in it, for a module and its submodules."""
    found: dict[tuple[str, str], set[int]] = {}
    for index, (path, submodule) in enumerate(module.named_modules()):
        if index >= _MODULES_KEPT:
            break
        for name in _HOOK_DICTS:
            hooks = getattr(submodule, name, None)
            if hooks:
                found[(path, name)] = set(hooks)
    return found


class LateHooks:
    """Each nn.Module whose code Dynamo compiles (its forward, the resume functions after a break in it), with its
    hooks as of that code's latest compile; at stop, the hooks it has that a code's latest compile did not see (a
    resume function compiled before the hooks runs without them, however often the forward recompiles). A session's
    collector (capture/collector.py); it patches nothing."""

    what = "the module hooks added after compiling"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        # (id(module), code) -> (a weak reference to the module, its hooks at the code's latest compile, that
        # compile's id, the code's name)
        self._seen: dict[tuple[int, Any], tuple[weakref.ref, dict[tuple[str, str], set[int]], str | None, str]] = {}

    def start(self) -> Warnings:
        self.recorder.argument_observers[TARGET] = self._compiling
        return None

    def _compiling(self, recorder: Recorder, args: tuple[Any, ...]) -> None:
        code, frame_locals = (args[0], args[2]) if len(args) > 2 else (None, None)
        module = frame_locals.get("self") if isinstance(frame_locals, dict) else None
        if module is None or not hasattr(module, "named_modules") or not hasattr(module, "_forward_hooks"):
            return
        span = recorder.current_span()
        name = f"{type(module).__qualname__}.{getattr(code, 'co_name', 'forward')}"
        try:
            self._seen[(id(module), code)] = (weakref.ref(module), _hooks(module), span.compile_id if span else None,
                                              name)
        except TypeError:  # a module that cannot be weakly referenced is not followed
            pass

    def stop(self) -> Warnings:
        self.recorder.argument_observers.pop(TARGET, None)
        for reference, before, compile_id, frame in self._seen.values():
            module = reference()
            if module is None:
                continue
            added = []
            for (path, name), ids in _hooks(module).items():
                hooks = getattr(module.get_submodule(path) if path else module, name, {})
                for hook_id in sorted(ids - before.get((path, name), set())):
                    hook = hooks.get(hook_id)
                    added.append({"module": path, "kind": _KIND[name], "function": _hook_name(hook)})
            if added:
                self.recorder.add_artifact("hooks", ARTIFACT, None, {
                    "frame": frame, "compile_id": compile_id, "hooks": added[:_HOOKS_SAID], "count": len(added)},
                    None, 0)
        return None

    def contribute(self, trace: Any) -> None:
        pass


def _hook_name(hook: Any) -> str:
    function = getattr(hook, "__func__", hook)
    return str(getattr(function, "__qualname__", None) or type(hook).__name__)
