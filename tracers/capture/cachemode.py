"""Cold and warm cache modes: a cold run turns torch's compile caches off and starts from an empty cache dir, into
which it puts only what any run of the user's on this machine has already cached about the machine (the CPU
vector-ISA check's test programs), so that its compile times are those of the user's own first run of the program."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tracers.tracefile.names import CACHE_MODES as MODES
from tracers.vocabulary.sites import cache_root

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
    _seed(Path(directory))
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
        _keep_isa_checks(Path(directory))
        shutil.rmtree(directory, ignore_errors=True)


def isa_store() -> Path:
    """Where cold runs keep the ISA check's test programs between runs (the user's own runs keep them in torch's
    cache dir): by content hash, laid out as in Inductor's cache dir, so any torch finds its own."""
    return cache_root() / "isa-checks"


def _seed(directory: Path) -> None:
    """The kept ISA checks, copied into a cold run's fresh cache dir: Inductor finds each test program built and only
    loads it, as in the user's own runs. Nothing kept, or a store that cannot be read: the check runs in full."""
    store = isa_store()
    if store.is_dir():
        with contextlib.suppress(OSError):
            shutil.copytree(store, directory, dirs_exist_ok=True)


def _keep_isa_checks(directory: Path) -> None:
    """The ISA check's test programs a cold run built (the .cpp files holding torch's own check source, and what was
    built beside each), added to the store; another run writing the same file at once leaves one whole copy."""
    module = sys.modules.get("torch._inductor.cpu_vec_isa")
    code = getattr(getattr(module, "VecISA", None), "_avx_code", None)
    if not isinstance(code, str) or not directory.is_dir():
        return
    wanted = code.encode()
    store = isa_store()
    with contextlib.suppress(OSError):
        for source in directory.rglob("*.cpp"):
            if source.stat().st_size != len(wanted) or source.read_bytes() != wanted:
                continue
            for built in source.parent.glob(f"{source.stem}*"):
                if not built.is_file():
                    continue
                kept = store / built.relative_to(directory)
                if kept.exists():
                    continue
                kept.parent.mkdir(parents=True, exist_ok=True)
                partial = kept.with_name(f".{kept.name}.{os.getpid()}")
                shutil.copy2(built, partial)
                os.replace(partial, kept)


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
