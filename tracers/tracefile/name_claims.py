"""Trace file names concurrent runs never share: each run claims its name, and steps aside from a taken one."""

# Taken: another live run holds the name, or its file was written after this run started.

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

FileName = Callable[[str], str]  # a run name in, the file's name out


def _claim_file(path: Path) -> Path:
    return path.with_name(f".{path.name}.claim")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _holder(path: Path) -> int | None:
    """The pid of the live process that claimed ``path``, if any (a dead run's claim counts for nothing)."""
    try:
        pid = int(_claim_file(path).read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError):
        return None
    return pid if pid > 0 and _alive(pid) else None


def _taken(path: Path, started: float) -> bool:
    holder = _holder(path)
    if holder is not None and holder != os.getpid():
        return True
    try:
        return holder is None and path.stat().st_mtime >= started  # written while this run ran: not ours to replace
    except OSError:
        return False


def variant(name: str, number: int) -> str:
    """The run's name made distinct: ``mlp`` → ``mlp.2`` (before the device and cache, so rank and merge
    file names keep their shape)."""
    return name if number <= 1 else f"{name}.{number}"


def claim(directory: Path, name: str, file_name: FileName, started: float) -> str:
    """The run name to write under: ``name`` unless its file (``file_name(name)`` in ``directory``) is held by
    another live run or was written since ``started``; then ``name.2``, ``name.3`` … The file is claimed
    for this process until ``release``."""
    number = 1
    while True:
        candidate = variant(name, number)
        path = directory / file_name(candidate)
        if not _taken(path, started) and _take(path):
            return candidate
        number += 1


def _take(path: Path) -> bool:
    """Create the claim exclusively (two runs starting together cannot both get it); a dead run's is replaced."""
    claim_file = _claim_file(path)
    for _ in range(2):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(claim_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _holder(path)
            if holder == os.getpid():
                return True
            if holder is not None:
                return False
            try:
                claim_file.unlink(missing_ok=True)  # left by a run that died
            except OSError:  # the folder is no folder now (a file took its place during the run): no claim then
                return True
            continue
        except OSError:
            return True  # a claim is a courtesy to other runs: a folder that refuses it never stops this one
        with os.fdopen(handle, "w", encoding="ascii") as stream:
            stream.write(str(os.getpid()))
        return True
    return False


def release(path: Path) -> None:
    """Drop this process's claim on ``path`` (another process's claim stays)."""
    claim_file = _claim_file(path)
    try:
        if int(claim_file.read_text(encoding="ascii").strip() or 0) == os.getpid():
            claim_file.unlink()
    except (OSError, ValueError):
        pass
