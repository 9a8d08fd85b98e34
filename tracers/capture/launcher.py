"""Which rank this process is: read from the torch.distributed environment a launcher sets (torchrun, spawn)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

# What torchrun sets for every worker (torch.distributed.run's docs, "Environment variables"); RANK and
# WORLD_SIZE are also what a torch.multiprocessing.spawn program sets before init_process_group("env://").
_REQUIRED = ("RANK", "WORLD_SIZE")


class RankEnvironmentError(ValueError):
    """The launcher's variables are there but do not make sense (e.g. RANK=abc); one line says which."""


@dataclass(frozen=True)
class RankEnv:
    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    host: str
    launcher: str  # torchrun, or env (RANK/WORLD_SIZE set by the program's own launcher)
    run_id: str | None = None  # torchrun's id of this launch (a fresh one per --standalone launch)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def detect(environ: Mapping[str, str] | None = None) -> RankEnv | None:
    """The rank this process runs as, or None outside a distributed launcher."""
    environ = os.environ if environ is None else environ
    if not all(environ.get(name) for name in _REQUIRED):
        return None
    values = {}
    for name, default in (("RANK", None), ("WORLD_SIZE", None), ("LOCAL_RANK", "RANK"),
                          ("LOCAL_WORLD_SIZE", "WORLD_SIZE")):
        text = environ.get(name) or environ[default]  # type: ignore[index]
        try:
            values[name] = int(text)
        except ValueError:
            raise RankEnvironmentError(f"{name}={text!r} is not a whole number") from None
    if not 0 <= values["RANK"] < values["WORLD_SIZE"]:
        raise RankEnvironmentError(f"RANK={values['RANK']} is outside WORLD_SIZE={values['WORLD_SIZE']}")
    # torchrun marks its workers with TORCHELASTIC_RUN_ID (torch.distributed.elastic's agent sets it).
    run_id = environ.get("TORCHELASTIC_RUN_ID") or None
    return RankEnv(values["RANK"], values["WORLD_SIZE"], values["LOCAL_RANK"], values["LOCAL_WORLD_SIZE"],
                   socket.gethostname(), "torchrun" if run_id else "env", run_id)


def leads_output(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process speaks for its run on the terminal: any single process, and rank 0 of a
    distributed one (the others would print the same summary and spinner once more each)."""
    try:
        env = detect(environ)
    except RankEnvironmentError:
        return True
    return env is None or env.rank == 0


def clock_anchor() -> dict[str, int]:
    """This process's span clock (perf_counter) read beside the wall clock, so traces of several
    processes — on several hosts too — can be put on one time axis (tracers/ranks/clock.py)."""
    before = time.perf_counter_ns()
    wall = time.time_ns()
    after = time.perf_counter_ns()
    return {"perf_ns": (before + after) // 2, "wall_ns": wall}


def process_group_backend() -> str | None:
    """The default process group's backend (gloo, nccl, …) if the program created one and it still exists."""
    import sys

    distributed = sys.modules.get("torch.distributed")
    try:
        if distributed is None or not distributed.is_available() or not distributed.is_initialized():
            return None
        return str(distributed.get_backend())
    except Exception:  # noqa: BLE001 - a half torn-down group: the backend is simply not known
        return None


def group_rank() -> tuple[int, int] | None:
    """This process's rank and world size in the default process group, if the program created one."""
    import sys

    distributed = sys.modules.get("torch.distributed")
    try:
        if distributed is None or not distributed.is_available() or not distributed.is_initialized():
            return None
        return int(distributed.get_rank()), int(distributed.get_world_size())
    except Exception:  # noqa: BLE001 - a half torn-down group: no rank to read
        return None
