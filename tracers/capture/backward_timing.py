"""Each timed call's backward: the autograd nodes the call made, from the first one starting to the last ending."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

from tracers.tracefile.speed import NO_BACKWARD

_MOST_NODES = 200_000  # a graph larger than this is not walked: its backward goes untimed rather than slow the step


class BackwardTimer:
    """One compiled object's backwards, by call.

    Autograd numbers each node it creates in one thread in order (``Node._sequence_nr``), and runs a backward
    highest number first among the nodes ready. So the nodes numbered between a call's start and end are the ones
    it made: the highest of those its outputs hold starts its part of the backward, the lowest reachable ends it.
    Compiled, that is AOTAutograd's one ``CompiledFunctionBackward`` node (where the compiled backward runs, lazily
    compiled on its first run); eager, the many nodes of the ops the forward ran. A pre-hook and a hook on those
    two nodes read the clock (and record CUDA events on the backward's stream); neither changes a gradient."""

    def __init__(self, torch: Any):
        self._torch = torch
        self._sequence = getattr(torch._C._autograd, "_get_sequence_nr", None)  # absent: no backward timing
        self.cuda = False
        self._starts: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        self._events: dict[int, list[Any]] = {}
        self._watched: set[int] = set()  # calls whose nodes carry our hooks
        self.note: str | None = None

    def pending(self, index: int) -> bool:
        """Whether call ``index`` made nodes whose backward has not ended yet."""
        return index in self._watched and index not in self._ends

    def sequence(self) -> int | None:
        """The next node number, before a call (None: nothing to time, grad is off)."""
        if self._sequence is None or not self._torch.is_grad_enabled():
            return None
        return self._sequence()

    def watch(self, index: int, sequence: int | None, result: Any) -> None:
        """After call ``index``: hook the first and last of the nodes it made that its result leads to (a failure
        leaves that call's backward untimed, said once; the call's result stands)."""
        if sequence is None or result is None:
            return
        if _compiled_autograd():
            # Compiled autograd traces the backward's hooks into its own graph: ours would be code it compiles.
            self.note = self.note or "backward not timed: compiled autograd runs it (our hooks would enter its graph)"
            return
        try:
            self._watch(index, sequence, result)
        except Exception as error:  # noqa: BLE001 - never the user's call's outcome
            self.note = self.note or f"a backward could not be timed ({type(error).__name__}: {error})"

    def _watch(self, index: int, sequence: int, result: Any) -> None:
        after = self._sequence()
        if after == sequence:
            return
        made = range(sequence, after)
        if isinstance(result, self._torch.Tensor):  # the common case, without the generator's cost
            found = [result.grad_fn] if result.grad_fn is not None else []
        else:
            found = list(_grad_fns(result, self._torch.Tensor))
        roots = {node._sequence_nr(): node for node in found if node._sequence_nr() in made}  # by number: _lowest
        if not roots:
            return
        first = max(roots.values(), key=lambda node: node._sequence_nr())
        last = _lowest(list(roots.values()), made)
        if last is None:
            return
        first.register_prehook(self._started(index))
        last.register_hook(self._ended(index))
        self._watched.add(index)

    def _started(self, index: int) -> Any:
        def started(grad_outputs: Any) -> None:
            if index not in self._starts:
                self._starts[index] = time.perf_counter_ns()
                if self.cuda:
                    self._events[index] = self._record([])

        return started

    def _ended(self, index: int) -> Any:
        def ended(grad_inputs: Any, grad_outputs: Any) -> None:
            if index in self._starts and index not in self._ends:
                self._ends[index] = time.perf_counter_ns()
                if index in self._events:
                    self._record(self._events[index])

        return ended

    def _record(self, events: list[Any]) -> list[Any]:
        """An event recorded on the stream autograd runs this node on (the forward's); a failure costs the user's
        backward nothing: that call's backward keeps its wall time only."""
        try:
            event = self._torch.cuda.Event(enable_timing=True)
            event.record()
            events.append(event)
        except Exception as error:  # noqa: BLE001 - never raise inside the user's backward
            self.note = f"backward CUDA events not recorded ({type(error).__name__}: {error})"
        return events

    def host_times(self, calls: range) -> list[int]:
        """Wall times of the backwards that ran, of these calls (the profile window's)."""
        return [self._ends[index] - self._starts[index] for index in calls if index in self._ends]

    def times(self, calls: int) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """Per call: its backward's wall time and CUDA events' time (None off CUDA); NO_BACKWARD where none ran."""
        host = tuple(self._ends[index] - self._starts[index] if index in self._ends else NO_BACKWARD
                     for index in range(calls))
        if not self.cuda or not self._events:
            return host, None
        try:
            self._torch.cuda.synchronize()
            device = tuple(round(pair[0].elapsed_time(pair[1]) * 1e6) if len(pair) == 2 else NO_BACKWARD
                           for pair in (self._events.get(index, ()) for index in range(calls)))
        except Exception as error:  # noqa: BLE001 - a failed device: the wall times stand, said so
            self.note = f"backward CUDA event times unreadable ({type(error).__name__}: {error})"
            return host, None
        return host, device


def _compiled_autograd() -> bool:
    """Whether the next backward runs under compiled autograd (its config switch, or inside its context)."""
    config = sys.modules.get("torch._dynamo.config")
    module = sys.modules.get("torch._dynamo.compiled_autograd")
    return bool(getattr(config, "compiled_autograd", False) or getattr(module, "compiled_autograd_enabled", False))


def _grad_fns(value: Any, tensor: type, depth: int = 0) -> Iterator[Any]:
    """The autograd nodes of the tensors in a call's result (tuples, lists, dicts and ModelOutput-like mappings)."""
    if isinstance(value, tensor):
        if value.grad_fn is not None:
            yield value.grad_fn
    elif depth < 4 and isinstance(value, (tuple, list)):
        for item in value:
            yield from _grad_fns(item, tensor, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            yield from _grad_fns(item, tensor, depth + 1)


def _lowest(roots: list[Any], made: range) -> Any:
    """The lowest-numbered node among those the call made that ``roots`` reach: the last of them a backward runs.

    A node is known by its number, never by ``id()``: a C++ node's Python wrapper may be made afresh at each
    ``next_functions`` read and freed after, so ids repeat (and one node can come back as two wrappers)."""
    seen = {node._sequence_nr() for node in roots}
    stack = list(roots)
    lowest, lowest_nr = None, None
    while stack:
        node = stack.pop()
        number = node._sequence_nr()
        if lowest_nr is None or number < lowest_nr:
            lowest, lowest_nr = node, number
        for child, _ in node.next_functions:
            if child is None:
                continue
            child_nr = child._sequence_nr()
            if child_nr in made and child_nr not in seen:
                seen.add(child_nr)
                stack.append(child)
        if len(seen) > _MOST_NODES:
            return None
    return lowest
