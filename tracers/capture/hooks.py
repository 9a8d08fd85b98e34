"""Patch every stages-table entry point where torch binds it, and undo each patch exactly."""

from __future__ import annotations

import functools
import importlib.abc
import inspect
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any

from tracers.tracefile import compile_identity as _compile_identity_module
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import Target

from . import recorder as _recorder_module
from .dynamo_shield import shield
from .recorder import Recorder

_MISSING = object()


@dataclass(frozen=True)
class Patch:
    """One attribute we replaced: put ``original`` back on ``owner.attr`` to undo it."""

    owner: Any
    attr: str
    original: Any
    replacement: Any
    target: str
    how: str  # definition, binding (module-level ``from m import f``) or default (argument default)


def make_wrapper(original: Callable[..., Any], target: Target, recorder: Recorder) -> Callable[..., Any]:
    """A transparent wrapper that records one span per call while the recorder is active."""

    @functools.wraps(original)
    def traced(*args: Any, **kwargs: Any) -> Any:
        if not recorder.active:  # a copy captured during tracing outlived it: call straight through
            return original(*args, **kwargs)
        span = recorder.enter(target, args, kwargs)
        try:
            result = original(*args, **kwargs)
        except BaseException as error:
            recorder.exit(span, error)
            raise
        recorder.observe(target.name, args, result)  # while the span is still the current one
        recorder.exit(span, None)
        return result

    traced.__tracers_target__ = target.name  # type: ignore[attr-defined]
    return traced


def _resolve_owner(module: ModuleType, qualname: str) -> tuple[Any, str]:
    """The object holding the last part of ``qualname`` (module or class) and that part's name."""
    owner: Any = module
    *path, attr = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, attr


def _unwrap_descriptor(raw: Any) -> tuple[Callable[..., Any] | None, Callable[[Any], Any]]:
    """The plain function inside a class attribute, and how to re-wrap a replacement the same way."""
    if isinstance(raw, staticmethod):
        return raw.__func__, staticmethod
    if isinstance(raw, classmethod):
        return raw.__func__, classmethod
    if callable(raw) and not isinstance(raw, type):
        return raw, lambda fn: fn
    return None, lambda fn: fn


class _NotifyingLoader:
    """Delegates to the real loader and runs a callback once the module has executed."""

    def __init__(self, real: Any, callback: Callable[[ModuleType], None]):
        self._real = real
        self._callback = callback

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def create_module(self, spec: Any) -> ModuleType | None:
        return self._real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # Put the real loader back before anything sees the module, so no trace of ours stays
        # on it (linecache and inspect read source through __loader__).
        module.__loader__ = self._real
        if module.__spec__ is not None:
            module.__spec__.loader = self._real
        before = set(sys.modules)
        self._real.exec_module(module)
        self._callback(module, set(sys.modules) - before)


class _PostImportFinder(importlib.abc.MetaPathFinder):
    """Intercepts the import of named modules so they can be patched the moment they load."""

    def __init__(self, names: Iterable[str], callback: Callable[[ModuleType, set[str]], None]):
        self.pending = set(names)
        self._callback = callback
        self._lock = threading.Lock()

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in self.pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        with self._lock:
            self.pending.discard(fullname)
        spec.loader = _NotifyingLoader(spec.loader, self._callback)
        return spec


class HookSet:
    """Installs wrappers for a set of targets now or, for modules not yet imported, on import."""

    def __init__(self, targets: Iterable[Target], recorder: Recorder):
        self.targets = tuple(targets)
        self.recorder = recorder
        self.patches: list[Patch] = []
        self.missing: dict[str, str] = {}
        self.hooked: list[str] = []
        self._finder: _PostImportFinder | None = None
        self._lock = threading.RLock()
        self._shielded = False
        # Told about each original function once it is patched (executed-lines counting watches it).
        self.on_patched: Callable[[Target, Callable[..., Any]], None] | None = None

    # -- install --------------------------------------------------------------------------
    def _shield(self) -> None:
        # The wrappers and the recorder run inside hooked calls, some of them (compiled autograd's
        # capture) made while a compiled function's frame hook is set: Dynamo must not compile them.
        if not self._shielded:
            self._shielded = shield(sys.modules[__name__], _recorder_module, _compile_identity_module)

    def install(self) -> None:
        self._shield()
        waiting: dict[str, list[Target]] = {}
        for target in self.targets:
            waiting.setdefault(target.module, []).append(target)
        ready = [name for name in waiting if name in sys.modules]
        for name in ready:
            self._patch_module(sys.modules[name], waiting.pop(name), scan=None)
        self._waiting = waiting
        if waiting:
            self._finder = _PostImportFinder(waiting, self._on_import)
            sys.meta_path.insert(0, self._finder)

    def _on_import(self, module: ModuleType, new_modules: set[str]) -> None:
        self._shield()
        with self._lock:
            targets = self._waiting.pop(module.__name__, [])
        if targets:
            # Modules imported while this one loaded may have bound its functions already
            # (circular imports); modules imported later see our wrapper.
            self._patch_module(module, targets, scan=new_modules)

    def _patch_module(self, module: ModuleType, targets: list[Target], scan: set[str] | None) -> None:
        with self._lock:
            replaced: dict[int, Callable[..., Any]] = {}
            for target in targets:
                wrapper = self._patch_target(module, target)
                if wrapper is not None:
                    replaced[id(wrapper.__wrapped__)] = wrapper
            if not replaced:
                return
            names = sys.modules.keys() if scan is None else scan
            # Modules loaded before the session are searched in full. Those a lazy import brought in while this
            # one loaded (hundreds when Inductor loads, inside the first compile) are searched under the names
            # the functions are defined under, which is what ``from m import f`` binds: searching all their
            # names was ~30 ms of a cold Inductor compile (benchmarks/RESULTS.md). Later modules get the wrapper.
            by_name = None if scan is None else {wrapper.__wrapped__.__name__ for wrapper in replaced.values()}
            self._rebind_module_globals(replaced, [sys.modules.get(name) for name in list(names)], by_name)
            self._rebind_defaults(module, replaced)

    def _patch_target(self, module: ModuleType, target: Target) -> Callable[..., Any] | None:
        try:
            owner, attr = _resolve_owner(module, target.qualname)
        except AttributeError:
            self.missing[target.name] = f"{target.qualname} not found in {target.module}"
            return None
        if isinstance(owner, type):
            raw = owner.__dict__.get(attr, _MISSING)
            if raw is _MISSING:
                where = next((c.__qualname__ for c in owner.__mro__ if attr in c.__dict__), None)
                why = f"inherited from {where}" if where else "not found"
                self.missing[target.name] = f"{target.qualname}: {why}"
                return None
        else:
            raw = getattr(owner, attr, _MISSING)
            if raw is _MISSING:
                self.missing[target.name] = f"{target.qualname} not found in {target.module}"
                return None
        function, rewrap = _unwrap_descriptor(raw)
        if function is None or inspect.isgeneratorfunction(function) or inspect.iscoroutinefunction(function):
            self.missing[target.name] = f"{target.qualname} is not a plain function"
            return None
        wrapper = make_wrapper(function, target, self.recorder)
        self._apply(owner, attr, raw, rewrap(wrapper), target, "definition")
        self.hooked.append(target.name)
        if self.on_patched is not None:
            self.on_patched(target, function)
        return wrapper

    def _apply(self, owner: Any, attr: str, original: Any, replacement: Any, target: Target | str, how: str) -> None:
        setattr(owner, attr, replacement)
        name = target.name if isinstance(target, Target) else target
        self.patches.append(Patch(owner, attr, original, replacement, name, how))

    def _rebind_module_globals(self, replaced: dict[int, Callable[..., Any]], modules: list[ModuleType | None],
                               names: set[str] | None = None) -> None:
        """Rebind every module-level name that holds an original (``from m import f``); only ``names`` if given."""
        for module in modules:
            namespace = getattr(module, "__dict__", None)
            if not isinstance(namespace, dict):
                continue
            found = list(namespace.items()) if names is None else \
                [(name, namespace[name]) for name in names if name in namespace]
            for name, value in found:
                wrapper = replaced.get(id(value))
                if wrapper is not None and value is wrapper.__wrapped__:
                    self._apply(module, name, value, wrapper, wrapper.__tracers_target__, "binding")

    def _rebind_defaults(self, module: ModuleType, replaced: dict[int, Callable[..., Any]]) -> None:
        """Swap originals captured as argument defaults (``inner_compile=compile_fx_inner``)."""
        for function in _functions_defined_in(module):
            defaults = function.__defaults__
            if defaults and any(id(value) in replaced for value in defaults):
                new = tuple(replaced.get(id(value), value) for value in defaults)
                target = next(replaced[id(v)].__tracers_target__ for v in defaults if id(v) in replaced)
                self._apply(function, "__defaults__", defaults, new, target, "default")
            kwdefaults = function.__kwdefaults__
            if kwdefaults and any(id(value) in replaced for value in kwdefaults.values()):
                new_kw = {key: replaced.get(id(value), value) for key, value in kwdefaults.items()}
                target = next(replaced[id(v)].__tracers_target__ for v in kwdefaults.values() if id(v) in replaced)
                self._apply(function, "__kwdefaults__", kwdefaults, new_kw, target, "default")

    def unreached_modules(self) -> dict[str, str]:
        """Targets whose module was never imported: missing if this torch has no such module,
        otherwise simply not needed by the program (reported as such, not as missing)."""
        import importlib.util

        result = {}
        for module_name, targets in getattr(self, "_waiting", {}).items():
            try:
                exists = importlib.util.find_spec(module_name) is not None
            except (ImportError, ValueError):
                exists = False
            for target in targets:
                result[target.name] = "not imported by this program" if exists else f"no module {module_name}"
        return result

    # -- undo -----------------------------------------------------------------------------
    def uninstall(self) -> list[str]:
        """Undo every patch, newest first; returns warnings for patches someone else replaced."""
        warnings = []
        with self._lock:
            if self._finder is not None:
                try:
                    sys.meta_path.remove(self._finder)
                except ValueError:
                    pass
                self._finder = None
            for patch in reversed(self.patches):
                current = _current_value(patch.owner, patch.attr)
                if current is not patch.replacement:
                    warnings.append(
                        f"{patch.target}: {patch.attr} was replaced by someone else during the run; left as is"
                    )
                    continue
                setattr(patch.owner, patch.attr, patch.original)
            self.patches.clear()
        return warnings

    # -- as a session's collector (capture/collector.py) ----------------------------------
    what = "the hooks"

    def start(self) -> None:
        self.install()

    def stop(self) -> list[str]:
        return self.uninstall()

    def contribute(self, trace: Trace) -> None:
        """Which targets were hooked, which this torch lacks, which the program never imported."""
        info = trace.info
        info.targets_hooked = sorted(set(self.hooked))
        missing = dict(self.missing)
        for target, why in self.unreached_modules().items():
            if why == "not imported by this program":
                info.targets_not_imported.append(target)
            else:
                missing[target] = why
        info.targets_missing = missing


def _current_value(owner: Any, attr: str) -> Any:
    if isinstance(owner, type):
        return owner.__dict__.get(attr, _MISSING)
    return getattr(owner, attr, _MISSING)


def _functions_defined_in(module: ModuleType) -> Iterable[FunctionType]:
    """Module-level functions and methods of classes that the module itself defines.

    A function we already wrapped is looked through: its original still holds the defaults."""
    for value in list(vars(module).values()):
        while isinstance(value, FunctionType) and "__tracers_target__" in value.__dict__:
            value = value.__wrapped__
        if isinstance(value, FunctionType) and value.__module__ == module.__name__:
            yield value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for member in list(vars(value).values()):
                function, _ = _unwrap_descriptor(member)
                if isinstance(function, FunctionType):
                    yield function
