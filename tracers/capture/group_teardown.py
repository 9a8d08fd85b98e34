"""``torch.distributed.destroy_process_group`` followed by a moment with the GIL released, so that the group's worker
threads finish before the script drops its DDP model.

A gloo worker thread ends each collective by freeing the work's saved thread state, which holds a Python object
(the context torch stashes for every backward), so it takes the GIL. After ``destroy_process_group`` a DDP model's
Reducer holds the group's last reference; when the script then drops the model, the Reducer is freed with the GIL
held and joins those threads: if one is still waiting for the GIL, the process hangs. That race is torch's (a plain
run that imports ``torch._dynamo`` first hits it too); the tracer imports Dynamo early and makes it likely on a busy
machine. A session's collector: it wraps the function while tracing and puts torch's own back at stop."""

from __future__ import annotations

import functools
import sys
import time
from typing import Any

from .collector import Warnings

_MODULES = ("torch.distributed", "torch.distributed.distributed_c10d")  # where programs reach the function
_NAME = "destroy_process_group"
# Long enough for a thread that waits for the GIL to be woken and scheduled on a loaded machine; paid once a run.
_DRAIN_S = 0.05


class GroupTeardown:
    """Wraps ``destroy_process_group`` in torch.distributed's modules; puts each binding back at stop."""

    what = "the process-group teardown"

    def __init__(self) -> None:
        self._patched: list[tuple[Any, Any, Any]] = []  # (module, torch's function, our wrapper)

    def start(self) -> Warnings:
        modules = [sys.modules.get(name) for name in _MODULES]  # imported with torch; never imported here
        original = next((getattr(m, _NAME, None) for m in modules if m is not None and hasattr(m, _NAME)), None)
        if original is None:
            return None

        @functools.wraps(original)
        def destroy_process_group(*args: Any, **kwargs: Any) -> Any:
            try:
                return original(*args, **kwargs)
            finally:
                time.sleep(_DRAIN_S)  # the GIL released: waiting worker threads run their last step now

        for module in modules:
            if module is not None and getattr(module, _NAME, None) is original:
                setattr(module, _NAME, destroy_process_group)
                self._patched.append((module, original, destroy_process_group))
        return None

    def stop(self) -> Warnings:
        """Put torch's function back in each module (only where ours is still the one there)."""
        for module, original, wrapper in self._patched:
            if getattr(module, _NAME, None) is wrapper:
                setattr(module, _NAME, original)
        self._patched.clear()
        return None

    def contribute(self, trace: Any) -> None:
        pass
