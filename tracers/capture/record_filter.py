"""Skips structured-trace records the tracer never keeps before torch builds them, so they cost nothing."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

# torch builds every record's metadata and payload (a chromium event serialized to JSON and hashed, a
# graph printed with strides) as soon as ``trace_log`` has any handler, then hands it to the handlers:
# https://github.com/pytorch/pytorch/blob/v2.13.0/torch/_logging/_internal.py (``trace_structured``:
# ``if trace_log.handlers:`` is the only gate). Our handler keeps a few dozen names and drops the rest,
# e.g. ~190 chromium events per MLP compile; wrapping ``trace_structured`` lets a record we would drop
# be counted and skipped before any of that work. Records we keep go to torch's own function unchanged.
_INTERNAL = "torch._logging._internal"


class RecordFilter:
    """Wraps torch's ``trace_structured`` where modules bind it; undone exactly by ``uninstall``."""

    def __init__(self, wanted: Callable[[str], bool], dropped: Counter[str],
                 alone: Callable[[], bool] = lambda: True):
        self.wanted = wanted  # record name -> whether the collector keeps it
        self.dropped = dropped  # counted here as the collector would have counted them
        # Whether the collector is the only one listening: TORCH_TRACE's own handler, or any other a
        # program attached, gets every record as it would without the tracer.
        self.alone = alone
        self.original: Callable[..., Any] | None = None
        self._bound: list[tuple[dict[str, Any], str]] = []  # module namespaces we rebound
        self._modules_before: set[str] = set()
        self.active = False

        dropped_names: set[str] = set()  # names already decided: a set lookup per record, not a call

        def trace_structured(name: str, metadata_fn: Callable[[], Any] = dict, **options: Any) -> None:
            original = self.original
            if original is None or not self.active:  # a copy bound during tracing outlived it: straight through
                return trace_structured.__torch_original__(name, metadata_fn, **options)  # type: ignore[attr-defined]
            if name == "artifact":  # the name that matters is inside: {"name": ..., "encoding": ...}
                metadata = metadata_fn()
                inner = metadata.get("name") if isinstance(metadata, dict) else None
                if inner is not None and (inner in dropped_names or not self.wanted(str(inner))) and self.alone():
                    dropped_names.add(inner)
                    dropped[str(inner)] += 1
                    return None
                return original(name, lambda: metadata, **options)
            if (name in dropped_names or not self.wanted(name)) and self.alone():
                dropped_names.add(name)
                dropped[name] += 1
                return None
            return original(name, metadata_fn, **options)

        self.wrapper = trace_structured  # one object, so identity finds where it was bound
        trace_structured.__record_filter__ = self  # type: ignore[attr-defined]

    def install(self) -> bool:
        """Rebind every module-level ``trace_structured`` that is torch's; False on a torch without it."""
        internal = sys.modules.get(_INTERNAL)
        original = getattr(internal, "trace_structured", None)
        if original is None:
            return False
        self.original = original
        # torch's own function, even under a nested session's filter: what a stale copy calls
        self.wrapper.__torch_original__ = getattr(original, "__torch_original__", original)  # type: ignore[attr-defined]
        self._modules_before = set(sys.modules)
        self.active = True
        self._rebind(list(sys.modules.values()), original, self.wrapper)
        return True

    def uninstall(self) -> None:
        """Put torch's function back: where we rebound it, and in modules imported since that bound ours."""
        if self.original is None:
            return
        self.active = False
        restore = self.original
        if getattr(getattr(restore, "__record_filter__", None), "active", True) is False:
            restore = restore.__torch_original__  # an outer session's filter, already removed: skip it
        for namespace, attr in self._bound:
            if namespace.get(attr) is self.wrapper:
                namespace[attr] = restore
        self._bound.clear()
        imported = [sys.modules.get(name) for name in set(sys.modules) - self._modules_before]
        self._rebind(imported, self.wrapper, restore, remember=False)
        self.original = None

    def _rebind(self, modules: list[Any], old: Any, new: Any, remember: bool = True) -> None:
        for module in modules:
            namespace = getattr(module, "__dict__", None)
            if not isinstance(namespace, dict) or not getattr(module, "__name__", "").startswith("torch"):
                continue
            for attr, value in list(namespace.items()):
                if value is old:
                    namespace[attr] = new
                    if remember:
                        self._bound.append((namespace, attr))
