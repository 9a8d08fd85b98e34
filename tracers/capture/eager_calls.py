"""Eager calls without ``sys.monitoring`` (Python 3.11): calls of what torch.compile returned, from a give-up on."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import CodeType
from typing import Any

from .recorder import Recorder

# What torch.compile returns for a function (and, inside OptimizedModule, for a module's ``__call__``) is the
# ``compile_wrapper`` this makes; it calls the wrapped callable through its closure cell ``fn`` (2.11–2.15).
ENTRY = "torch._dynamo.eval_frame:_TorchDynamoContext.__call__"
_CELL = "fn"


def _counting(fn: Callable[..., Any], cell: list[int]) -> Callable[..., Any]:
    """``fn`` with a call count in front: put in the wrapper's cell only once the frame gave up."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        cell[0] += 1
        return fn(*args, **kwargs)

    counted.__wrapped__ = fn  # type: ignore[attr-defined]
    return counted


def _fn_cell(wrapper: Any) -> Any:
    code = getattr(wrapper, "__code__", None)
    closure = getattr(wrapper, "__closure__", None)
    if code is None or not closure or _CELL not in code.co_freevars:
        return None
    return closure[code.co_freevars.index(_CELL)]


def _entry_codes(fn: Any) -> tuple[CodeType, ...]:
    """The code Dynamo is first offered when ``fn`` runs: its own, or a module's ``forward`` (Dynamo skips
    torch.nn's ``_wrapped_call_impl`` and ``_call_impl`` between ``mod.__call__`` and it)."""
    forward = getattr(getattr(fn, "__self__", None), "forward", None)
    codes = (getattr(fn, "__code__", None), getattr(forward, "__code__", None))
    return tuple(code for code in codes if isinstance(code, CodeType))


class EntryCalls:
    """Notes each callable torch.compile returns (a weak reference: no call of it costs anything); when Dynamo
    gives up a frame whose code one of them wraps, puts a counter in that callable's cell, so the frame's calls
    from then on are counted. Calls that ran eager = those calls (the one that gave up included) minus the calls
    the frame's compiled versions served meanwhile. Every cell is given back its callable at ``stop``."""

    def __init__(self) -> None:
        self._wrappers: list[tuple[weakref.ref[Any], tuple[CodeType, ...]]] = []
        self._counts: dict[str, tuple[list[int], CodeType, int]] = {}  # compile id -> calls, code, served then
        self._swapped: list[tuple[Any, Any, Any]] = []  # cell, callable, counting wrapper
        self._watched: set[CodeType] = set()

    def install(self, recorder: Recorder) -> None:
        recorder.result_observers[ENTRY] = self._note

    def _note(self, _recorder: Recorder, _args: tuple[Any, ...], result: Any) -> None:
        cell = _fn_cell(result)
        if cell is not None:
            codes = _entry_codes(cell.cell_contents)
            if codes:
                self._wrappers.append((weakref.ref(result), codes))
                # a wrapper made after its code gave up (a sweep's next model, compiled at the same line): its calls
                # run eager too, and count
                for code in codes:
                    counted = next((calls for calls, watched, _ in self._counts.values() if watched is code), None)
                    if counted is not None:
                        self._swap(cell, counted)
                        break

    def watch(self, code: CodeType, compile_id: str, served: int) -> bool:
        """Count ``code``'s calls from now on (``served``: its versions' calls so far); False where nothing
        torch.compile returned in this session wraps it (a nested frame, or compiled before the trace)."""
        if code in self._watched:
            return True
        cells = [_fn_cell(wrapper) for wrapper in (ref() for ref, codes in self._wrappers if code in codes)
                 if wrapper is not None]
        if not cells:
            return False
        self._watched.add(code)
        calls = [1]  # the call that made Dynamo give up runs eager: it is inside the wrapper already
        self._counts[compile_id] = (calls, code, served)
        for cell in cells:
            self._swap(cell, calls)
        return True

    def _swap(self, cell: Any, calls: list[int]) -> None:
        original = cell.cell_contents
        replacement = _counting(original, calls)
        cell.cell_contents = replacement
        self._swapped.append((cell, original, replacement))

    def eager(self, served_now: Callable[[CodeType], int]) -> dict[str, int]:
        """Per compile id that gave up: its frame's calls since, less those its compiled versions served."""
        counts = {compile_id: calls[0] - (served_now(code) - served)
                  for compile_id, (calls, code, served) in self._counts.items()}
        return {compile_id: count for compile_id, count in counts.items() if count >= 0}  # below 0: not counted

    def stop(self) -> None:
        """Give every cell its callable back (only where the counter is still the one there)."""
        for cell, original, replacement in reversed(self._swapped):
            if cell.cell_contents is replacement:
                cell.cell_contents = original
        self._swapped.clear()
        self._wrappers.clear()
