"""Module hooks added after a module's forward was last compiled: compiled code that does not run them (torch skips
guards on module hooks by default, ``skip_nnmodule_hook_guards``), so the program silently runs without them."""

from __future__ import annotations

import dis
import linecache

from typing import Any

from .collector import Warnings
from .recorder import Recorder

TARGET = "torch._dynamo.convert_frame:_compile"  # (code, globals, locals, ...): the frame being compiled
ARTIFACT = "late_hooks"
HOOKS_ARTIFACT = "module_hooks"  # the hooks each compiled module had when its code was compiled
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_KIND = {"_forward_hooks": "forward hook", "_forward_pre_hooks": "forward pre-hook",
         "_backward_hooks": "backward hook", "_backward_pre_hooks": "backward pre-hook"}
# what a hook's own code calls that Dynamo, tracing it, cannot keep in a graph: a tensor's value read into Python
_VALUE_READS = frozenset({"item", "tolist", "numpy"})
# what grows a container the hook does not own (a closure's or a module's list): traced, its length is guarded
_GROWING = frozenset({"append", "extend", "insert"})
_OUTER_LOADS = frozenset({"LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_CLASSDEREF"})
_MODULES_KEPT = 4096  # submodules looked at per compiled module: a model's, not a pathological one's
_HOOKS_SAID = 16


def _hook_dicts(module: Any) -> dict[tuple[str, str], Any]:
    """(submodule path, hook dict's name) -> the dict itself, for a module and its submodules: registering a hook adds
    to that same dict, so holding the dicts (not the module) shows at exit what was added, even where the model
    itself is gone by then (built inside a function that returned)."""
    found: dict[tuple[str, str], Any] = {}
    for index, (path, submodule) in enumerate(module.named_modules()):
        if index >= _MODULES_KEPT:
            break
        for name in _HOOK_DICTS:
            hooks = getattr(submodule, name, None)
            if isinstance(hooks, dict):
                found[(path, name)] = hooks
    return found


class LateHooks:
    """Each nn.Module whose code Dynamo compiles (its forward, the resume functions after a break in it), with its
    hooks as of that code's latest compile; at stop, the hooks it has that a code's latest compile did not see (a
    resume function compiled before the hooks runs without them, however often the forward recompiles). A session's
    collector (capture/collector.py); it patches nothing."""

    what = "the module hooks added after compiling"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        # (id(module), code) -> (the module's hook dicts, the hook ids each held at the code's latest compile, that
        # compile's id, the code's name)
        self._seen: dict[tuple[int, Any], tuple[dict[tuple[str, str], Any], dict[tuple[str, str], set[int]],
                                                str | None, str]] = {}
        # id(module) -> each compile of any of its code, in order: (compile id, every hook id it saw)
        self._history: dict[int, list[tuple[str | None, set[int]]]] = {}

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
        dicts = _hook_dicts(module)
        ids = {key: set(hooks) for key, hooks in dicts.items()}
        compile_id = span.compile_id if span else None
        self._seen[(id(module), code)] = (dicts, ids, compile_id, name)
        self._history.setdefault(id(module), []).append((compile_id, set().union(*ids.values())))

    def stop(self) -> Warnings:
        self.recorder.argument_observers.pop(TARGET, None)
        present: set[int] = set()
        for (module_id, _), (dicts, before, compile_id, frame) in self._seen.items():
            if module_id not in present:  # the hooks its compiled code ran: a break inside one is the hook's
                present.add(module_id)
                hooks = [_said(path, name, dicts[(path, name)].get(hook_id)) for (path, name), ids in before.items()
                         for hook_id in sorted(ids) if hook_id in dicts[(path, name)]]
                if hooks:
                    self.recorder.add_artifact("hooks", HOOKS_ARTIFACT, None, {
                        "frame": frame, "compile_id": compile_id, "hooks": hooks[:_HOOKS_SAID],
                        "count": len(hooks)}, None, 0)
            added, new_ids = [], set()
            for (path, name), hooks in dicts.items():
                for hook_id in sorted(set(hooks) - before.get((path, name), set())):
                    added.append({**_said(path, name, hooks.get(hook_id)), **_untraceable(hooks.get(hook_id))})
                    new_ids.add(hook_id)
            # the first compile of the module's code that saw them: compiled at the first call after they were added
            seen_at = next((cid for cid, ids in self._history.get(module_id, []) if new_ids <= ids), None)
            if added:
                self.recorder.add_artifact("hooks", ARTIFACT, None, {
                    "frame": frame, "compile_id": compile_id, "hooks": added[:_HOOKS_SAID], "count": len(added),
                    "seen_at": seen_at}, None, 0)
        self._seen.clear()  # the dicts go: nothing of the program's is held past the run
        self._history.clear()
        return None

    def contribute(self, trace: Any) -> None:
        pass


def _said(path: str, name: str, hook: Any) -> dict[str, Any]:
    """One hook as the trace keeps it: the submodule it is on, its kind, its function and where that is written."""
    file, line = _hook_file(hook), _hook_line(hook)
    return {"module": path, "kind": _KIND[name], "function": _hook_name(hook), "file": file, "line": line,
            "loc": linecache.getline(file, line).strip() if file else ""}


def _hook_name(hook: Any) -> str:
    function = getattr(hook, "__func__", hook)
    return str(getattr(function, "__qualname__", None) or type(hook).__name__)


def _hook_file(hook: Any) -> str:
    """Where the hook's function is defined ("" where it has no code of its own: a partial, a C function)."""
    function = getattr(hook, "__func__", hook)
    return str(getattr(getattr(function, "__code__", None), "co_filename", "") or "")


def _hook_line(hook: Any) -> int:
    """The line the hook's function starts at (a lambda's: where it was written, often the line registering it)."""
    function = getattr(hook, "__func__", hook)
    return int(getattr(getattr(function, "__code__", None), "co_firstlineno", 0) or 0)


def _untraceable(hook: Any) -> dict[str, list[str]]:
    """What the hook's own bytecode does that a traced hook pays for: ``reads`` (``item``, ``tolist``: a graph break
    each) and ``grows`` (the outer containers it appends to: each guarded on its length), where there are any."""
    code = getattr(getattr(hook, "__func__", hook), "__code__", None)
    if code is None:
        return {}
    reads: list[str] = []
    grows: list[str] = []
    outer = None  # the outer name loaded just before, whose method may be called next
    try:
        for instruction in dis.get_instructions(code):
            name = instruction.argval if isinstance(instruction.argval, str) else None
            if instruction.opname in ("LOAD_METHOD", "LOAD_ATTR") and name in _VALUE_READS and name not in reads:
                reads.append(name)
            if instruction.opname in ("LOAD_METHOD", "LOAD_ATTR") and name in _GROWING and outer and outer not in grows:
                grows.append(outer)
            outer = name if instruction.opname in _OUTER_LOADS else None
    except (TypeError, ValueError):  # code dis cannot read: nothing is claimed of it
        return {}
    return {key: value for key, value in (("reads", reads), ("grows", grows)) if value}
