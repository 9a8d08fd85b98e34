"""Compile ids that stay apart across ``torch._dynamo.reset()``: torch restarts its numbering, the trace does not."""

from __future__ import annotations

import re
import threading

# torch._dynamo.reset() (and torch.compiler.reset(), and explain(), which call it) sets Dynamo's frame
# counters back to zero, so the first compile after a reset is ``0/0`` again. The trace keeps torch's
# id and prefixes the number of resets before it: ``0/0`` before any reset, ``r1:0/0`` after the first.
RESET_TARGET = "torch._dynamo:reset"

# Stages that run only while Dynamo compiles a frame or compiled autograd captures a backward: an id
# seen there belongs to the compiles since the last reset. Elsewhere (the backward that AOTAutograd
# compiles lazily on the first .backward()) it may belong to a compile made before the last reset.
_STARTING_STAGES = frozenset({"frame", "bytecode", "guards", "graph", "compiled_autograd"})

_QUALIFIED = re.compile(r"^r(\d{1,18}):(.*)$")  # more digits than that: not one of ours (int() would refuse them)


# What a compile id read from a file may be: torch's CompileId as str() writes it (torch/_guards.py: ``0/0``,
# ``!1`` and ``!1/0/0`` under compiled autograd; a restart's attempt as ``_1``), with the resets before it (``r2:``).
# Anything else (``True/0`` from a frame id of true, ``0/0/0``, thousands of digits, other scripts' digits that
# str.isdigit() accepts and int() may not) is damage, and would stand as a compile of its own.
_NUMBER = r"[0-9]{1,18}"
_PLAUSIBLE = re.compile(rf"(?:r{_NUMBER}:)?(?:!{_NUMBER}(?:/{_NUMBER}/{_NUMBER})?|{_NUMBER}/{_NUMBER})(?:_{_NUMBER})?")


def plausible(value: object) -> bool:
    """Whether ``value`` can be a compile id (torch's notation, reset count allowed), as read from a trace or a log."""
    return isinstance(value, str) and _PLAUSIBLE.fullmatch(value) is not None


def qualified(torch_id: str, resets: int) -> str:
    """The trace's id of torch's ``torch_id`` made after ``resets`` resets."""
    return torch_id if resets == 0 else f"r{resets}:{torch_id}"


def split(compile_id: str) -> tuple[int, str]:
    """(resets before it, torch's own id) of a trace's compile id."""
    match = _QUALIFIED.match(compile_id)
    return (int(match.group(1)), match.group(2)) if match else (0, compile_id)


def torch_id(compile_id: str) -> str:
    """Torch's own id (``0/0``, ``!1/0/0``) inside a trace's compile id."""
    return split(compile_id)[1]


def sort_key(compile_id: str | None) -> tuple[int, ...]:
    """Resets first, then torch's numbers: ``0/0 < 1/0 < 1/1 < r1:0/0``; compiled autograd's ``!`` ids among
    them; no id (outside any compile) last."""
    if compile_id is None:
        return (1 << 30,)
    resets, own = split(compile_id)
    parts = own.lstrip("!").replace("_", "/").split("/")
    return (resets, *(int(part) if part.isascii() and part.isdigit() and len(part) <= 18 else 0 for part in parts))


class CompileIdentity:
    """Turns torch's compile ids into the trace's, counting the resets the program makes."""

    def __init__(self) -> None:
        self.resets = 0
        self._started: dict[str, int] = {}  # torch's id -> the latest reset generation that compiled it
        # Re-entrant: a frame of ours that Dynamo were offered inside a compiled region would come back here.
        self._lock = threading.RLock()

    def note_reset(self) -> None:
        with self._lock:
            self.resets += 1

    def qualify(self, own_id: str | None, stage: str | None) -> str | None:
        """The trace's id for torch's ``own_id`` seen while a step of ``stage`` runs."""
        if own_id is None:
            return None
        with self._lock:
            if stage in _STARTING_STAGES:
                self._started[own_id] = self.resets
                return qualified(own_id, self.resets)
            # A lazily compiled backward of a compile from before the last reset keeps that compile's id,
            # unless the same id has been compiled again since (torch's ids alone cannot tell them apart).
            return qualified(own_id, self._started.get(own_id, self.resets))
