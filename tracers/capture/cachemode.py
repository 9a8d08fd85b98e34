"""Cold and warm cache modes: a cold run turns torch's compile caches off and starts from an empty cache dir."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from tracers.tracefile.names import CACHE_MODES as MODES

# Environment torch reads when its config modules load (torch/_inductor/config.py,
# torch/_functorch/config.py), so these must be set before torch._inductor is imported.
_COLD_SWITCHES = {
    "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
    "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
}


@contextlib.contextmanager
def cache_mode(mode: str) -> Iterator[str | None]:
    """Apply a cache mode for the duration; yields the fresh cache dir of a cold run (None when warm)."""
    if mode not in MODES:
        raise ValueError(f"unknown cache mode {mode!r} (expected one of {', '.join(MODES)})")
    if mode == "warm":
        yield None
        return
    directory = tempfile.mkdtemp(prefix="tracers-cold-cache-")
    changes = {
        **_COLD_SWITCHES,
        # Compiled C++ and Triton kernels are cached on disk by content hash, apart from the
        # switches above: only an empty directory makes their compilation really happen.
        "TORCHINDUCTOR_CACHE_DIR": directory,
        "TRITON_CACHE_DIR": os.path.join(directory, "triton"),
    }
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    configs = _set_loaded_configs(fx_graph_cache=False, enable_autograd_cache=False)
    try:
        yield directory
    finally:
        _restore_configs(configs)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(directory, ignore_errors=True)


def _set_loaded_configs(**values: bool) -> list[tuple[object, str, object]]:
    """Config modules already imported have read the environment: set their values directly too."""
    import sys

    changed = []
    for module_name in ("torch._inductor.config", "torch._functorch.config"):
        module = sys.modules.get(module_name)
        if module is None:
            continue
        for name, value in values.items():
            if hasattr(module, name):
                changed.append((module, name, getattr(module, name)))
                setattr(module, name, value)
    return changed


def _restore_configs(changed: list[tuple[object, str, object]]) -> None:
    for module, name, value in reversed(changed):
        setattr(module, name, value)
