"""A traced run's child processes: their traces named by rank or pid, set beside the run's own, merged with it."""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path

from tracers.capture.child_handoff import ChildSpec
from tracers.tracefile.chrome import TraceFileError, load, write_atomic
from tracers.tracefile.events import Trace
from tracers.tracefile.names import TraceName, child_file, child_pid, claim_name, inside, release_name

from .clock import SAME_HOST, Alignment
from .merge import MergedRun, RankTrace

MAIN = "main process"
DIED = "no trace: it was killed before it could write one (SIGKILL, out of memory)"
STILL_RUNNING = "no trace yet: it was still running when the traced run ended"


@dataclass(frozen=True)
class Child:
    pid: int
    trace: Trace | None  # None: it began tracing but left no trace
    problem: str | None = None

    @property
    def rank(self) -> int | None:
        rank = (self.trace.info.rank or {}).get("rank") if self.trace is not None else None
        return rank if isinstance(rank, int) else None


@dataclass(frozen=True)
class Gathered:
    run: MergedRun
    written: tuple[Path, ...]  # the children's traces, in the run's folder
    compiled: int  # processes (the main one included) that compiled anything


def _read(directory: Path) -> list[Child]:
    """The children's traces, and the children that began but left none."""
    children: dict[int, Child] = {}
    for path in sorted(directory.glob(child_file("*"))):  # type: ignore[arg-type]
        pid = child_pid(path) or -1
        try:
            children[pid] = Child(pid, load(path))
        except TraceFileError as error:
            children[pid] = Child(pid, None, f"unreadable trace: {error}")
    for path in sorted(directory.glob(child_file("*", started=True))):  # type: ignore[arg-type]
        pid = child_pid(path) or -1
        if pid not in children:
            children[pid] = Child(pid, None, STILL_RUNNING if _alive(pid) else DIED)
    return [children[pid] for pid in sorted(children)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _spawn_ranks(children: list[Child], run_id: str) -> None:
    """torch.multiprocessing.spawn workers that made no process group: their spawn index is their rank."""
    if any(child.rank is not None for child in children):
        return
    indexed = [child for child in children if child.trace is not None
               and isinstance((child.trace.info.process or {}).get("spawn_index"), int)]
    world = 1 + max((child.trace.info.process["spawn_index"] for child in indexed), default=-1)  # type: ignore[union-attr]
    for child in indexed:
        index = child.trace.info.process["spawn_index"]  # type: ignore[union-attr]
        child.trace.info.rank = {"rank": index, "world_size": world, "local_rank": index,  # type: ignore[union-attr]
                                 "local_world_size": world, "host": socket.gethostname(),
                                 "launcher": "torch.multiprocessing.spawn", "run_id": run_id, "backend": None}


def gather(spec: ChildSpec, main: Trace, run_name: str, out: Path) -> Gathered | None:
    """Name and move the children's traces into the run's folder ``out`` and merge them with ``main``; None when
    no child was traced."""
    directory = Path(spec.directory)
    if not directory.is_dir():
        return None
    children = _read(directory)
    if not children:
        _remove(directory)
        return None
    _spawn_ranks(children, spec.run_id)
    ranks: dict[int, RankTrace] = {}
    others: list[Child] = []
    written: list[Path] = []
    for child in sorted(children, key=lambda child: (child.trace is None, child.rank is None, child.pid)):
        if child.trace is not None:
            as_rank = child.rank is not None and child.rank not in ranks
            name = claim_name(out, TraceName(run_name, child.trace.info.device, main.info.cache_mode,
                                             child.rank if as_rank else None, None if as_rank else child.pid),
                              spec.started)
            path = inside(out, name.file_name)
            try:
                write_atomic(child.trace, path, keep_paths=True)  # scrubbed already, in the child
                written.append(path)
            except OSError as error:
                child = Child(child.pid, child.trace, f"its trace could not be moved: {error.strerror or error}")
            finally:
                release_name(out, name)
            if as_rank:
                ranks[child.rank] = RankTrace(child.rank, child.trace, path.name)  # type: ignore[index]
                continue
        others.append(child)
    world = max([int((child.trace.info.rank or {}).get("world_size") or 0) for child in children
                 if child.trace is not None and child.rank is not None] + [max(ranks, default=-1) + 1])
    missing = [rank for rank in range(world) if rank not in ranks]
    dead = [child for child in others if child.trace is None]
    if len(missing) == 1 and len(dead) == 1:
        # The one rank that left no trace is the one child that died: list it once, as that rank.
        others.remove(dead[0])
        ranks[missing[0]] = RankTrace(missing[0], None, "", f"process {dead[0].pid}: {dead[0].problem}")
    slots = [ranks.get(rank) or RankTrace(rank, None, "") for rank in range(world)]
    slots.append(RankTrace(world, main, "", None, MAIN))
    for index, child in enumerate(others, start=world + 1):
        label = f"process {child.pid}" + (f" (rank {child.rank} again)" if child.rank is not None else "")
        slots.append(RankTrace(index, child.trace, "", child.problem, label))
    _remove(directory)
    devices = {slot.trace.info.device for slot in slots if slot.trace is not None}
    # Children run on the parent's host and time their spans with its monotonic clock: no shift at all.
    run = MergedRun(run_name, "cuda" if "cuda" in devices else main.info.device, main.info.cache_mode, world,
                    tuple(slots), Alignment({slot.rank: 0 for slot in slots}, SAME_HOST), "processes")
    compiled = sum(1 for slot in slots if slot.trace is not None and slot.trace.spans)
    return Gathered(run, tuple(written), compiled)


def _remove(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
    try:
        directory.parent.rmdir()  # .tracers-children, once no other run uses it
    except OSError:
        pass

