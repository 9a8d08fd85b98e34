"""Each timed call's backward: the autograd nodes the call made, from the first one starting to the last ending."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from tracers.tracefile.speed import NO_BACKWARD

_MOST_NODES = 200_000  # a graph larger than this is not walked: its backward goes untimed rather than slow the step
_AOT_NODE = "CompiledFunctionBackward"  # AOTAutograd's node: one per compiled graph's call, its class one per graph
_ENGINE_CALLS = ("apply", "apply_boxed")  # what the engine calls on a Python node (boxed: torch 2.13's AOT nodes)
_MARK = "_tracers_backward"  # on an AOTAutograd node: [(timer, call index, starts the call's backward, ends it)]
_STOOD_ASIDE = "backward not timed: compiled autograd runs it (our hooks would enter its graph)"
# Which calls' backwards are timed: every one of the first ALL_TIMED (a short loop's every step), then one call in
# SAMPLE_EVERY. Timing an eager call's backward costs two hooks on its nodes (12-20 µs a call on a 2-CPU machine, ten
# times its boundaries' timing; benchmarks/RESULTS.md, "The per-call timer's own cost"): over a long run the sample
# keeps the mean near the boundaries' cost, and a median over a few hundred backwards needs no more.
ALL_TIMED = 64
SAMPLE_EVERY = 32


def sampled(index: int) -> bool:
    """Whether call ``index``'s backward is timed (the same calls in the eager and the compiled run)."""
    return index < ALL_TIMED or index % SAMPLE_EVERY == 0


class NodeTypes:
    """AOTAutograd's backward node classes, timed once per class rather than by hooks per call: the engine calls a
    Python node's ``apply`` (``apply_boxed`` where its grads are boxed) through its class, so one wrapper there
    sees every call's node, and marking a node with its call costs the forward one attribute. Unmarked nodes run
    through untouched; compiled autograd calls the backward itself, never ``apply``, so it never meets the wrapper.
    ``restore`` puts each class back as it was, and no class is wrapped after it."""

    def __init__(self) -> None:
        self._wrapped: dict[type, dict[str, tuple[Any, Any]]] = {}  # class -> name -> (its own value or None, ours)
        self.classes: set[type] = set()  # those wrapped now
        self.closed = False

    def timed(self, node_type: type) -> bool:
        """Whether nodes of this class are timed by their class (wrapping it at its first node)."""
        if node_type in self.classes:
            return True
        if self.closed or node_type.__name__ != _AOT_NODE or not hasattr(node_type, "_forward_cls"):
            return False
        wrapped = {}
        for name in _ENGINE_CALLS:
            original = getattr(node_type, name, None)
            if original is not None:
                wrapped[name] = (node_type.__dict__.get(name), _timed_call(original))
                setattr(node_type, name, wrapped[name][1])
        self._wrapped[node_type] = wrapped
        self.classes.add(node_type)
        return True

    def restore(self) -> None:
        """Each class's own ``apply`` back (or none, as it had), where ours is still there; none wrapped after."""
        self.closed = True
        for node_type, wrapped in self._wrapped.items():
            for name, (own, ours) in wrapped.items():
                if node_type.__dict__.get(name) is not ours:
                    continue  # someone else's since: theirs stays
                if own is None:
                    delattr(node_type, name)
                else:
                    setattr(node_type, name, own)
        self._wrapped.clear()
        self.classes.clear()


def _timed_call(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (a node class's ``apply``), timing the nodes marked with their calls."""

    def timed(node: Any, *args: Any) -> Any:
        marks = getattr(node, _MARK, None)
        if marks is None:
            return original(node, *args)
        for timer, index, starts, _ in marks:
            if starts:
                timer.started(index)
        result = original(node, *args)  # its exception is the user's, unchanged: no end recorded
        for timer, index, _, ends in marks:
            if ends:
                timer.ended(index)
        return result

    return timed


class BackwardTimer:
    """One compiled object's backwards, by call.

    Autograd numbers each node it creates in one thread in order (``Node._sequence_nr``), and runs a backward
    highest number first among the nodes ready. So the nodes numbered between a call's start and end are the ones
    it made: the highest of those its outputs hold starts its part of the backward, the lowest reachable ends it.
    Compiled, that is AOTAutograd's one ``CompiledFunctionBackward`` node (where the compiled backward runs, lazily
    compiled on its first run), timed by its class (``NodeTypes``); eager, the many nodes of the ops the forward ran,
    timed by a pre-hook on the first and a hook on the last. Each reads the clock (and records CUDA events on the
    backward's stream); none changes a gradient. The walk to the last node waits for the backward to start (most
    calls have one output node): a call whose backward never runs costs one hook's registration, never a walk."""

    def __init__(self, torch: Any, types: NodeTypes | None = None, dynamo: bool = True):
        self._torch = torch
        self._types = types  # None: every node by hooks
        self._classes = types.classes if types is not None else frozenset()
        self._dynamo = dynamo  # False: torch.compile compiles nothing in this run (the eager one)
        self._tensor = torch.Tensor
        self.next_node = getattr(torch._C._autograd, "_get_sequence_nr", None)  # absent: no backward timed
        self._current = getattr(torch._C, "_current_autograd_node", None)  # absent: the walk at the call's end
        self.cuda = False
        self._starts: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        self._events: dict[int, list[Any]] = {}
        self._watched: set[int] = set()  # calls whose nodes carry our hooks or marks
        self.walks: list[tuple[int, int]] = []  # (perf_counter, ns) of each walk made inside a backward
        self.note: str | None = None

    def pending(self, index: int) -> bool:
        """Whether call ``index`` made nodes whose backward has not ended yet."""
        return index in self._watched and index not in self._ends

    def sequence(self) -> int | None:
        """The next node number, before a call (None: nothing to time, grad is off; the call timer reads it inline)."""
        if self.next_node is None or not self._torch.is_grad_enabled():
            return None
        return self.next_node()

    def watch(self, index: int, sequence: int | None, result: Any) -> None:
        """After call ``index``: mark or hook the first and last of the nodes it made that its result leads to (a
        failure leaves that call's backward untimed, said once; the call's result stands). Every call with grad
        on comes here: the common cases (one tensor out; one AOTAutograd node made) go straight through."""
        if sequence is None or result is None:
            return
        try:
            after = self.next_node()
            if after == sequence:
                return
            if after - sequence == 1 and isinstance(result, self._tensor):
                # The one node a compiled call makes, its class timed: a mark, and no compiled autograd switch to
                # read (it calls the backward itself, never apply: nothing of ours for it to trace; 3 µs a read).
                first = result.grad_fn
                if type(first) in self._classes and getattr(first, _MARK, None) is None \
                        and first._sequence_nr() == sequence and not _compiled_autograd_on():
                    setattr(first, _MARK, [(self, index, True, True)])
                    self._watched.add(index)
                    return
            if isinstance(result, self._tensor):
                first, roots = result.grad_fn, None
                if first is None or not sequence <= first._sequence_nr() < after:
                    return
            else:
                roots = {node._sequence_nr(): node for node in _grad_fns(result, self._tensor)
                         if sequence <= node._sequence_nr() < after}  # by number: see _lowest
                if not roots:
                    return
                first = roots[max(roots)]
            if _compiled_autograd_on():
                self.note = self.note or _STOOD_ASIDE
                return
            one = after - sequence == 1  # one node made: the first is the last
            if one and self._types is not None and self._types.timed(type(first)):  # its class's first node
                self._mark(first, index, True, True)
            elif self._dynamo and _compiled_autograd_switch():
                self.note = self.note or _STOOD_ASIDE
                return
            elif one:
                self._hook(first, index, True, True)
            elif (roots is None or len(roots) == 1) and self._current is not None:
                first.register_prehook(functools.partial(self._walk_then_start, index, range(sequence, after)))
            else:  # outputs of several nodes: the walk needs them all, so it cannot wait for the backward
                last = _lowest(list(roots.values()) if roots else [first], range(sequence, after))
                if last is None:
                    return
                alone = last._sequence_nr() == first._sequence_nr()
                self._attach(first, index, True, alone)
                if not alone:
                    self._attach(last, index, False, True)
            self._watched.add(index)
        except Exception as error:  # noqa: BLE001 - never the user's call's outcome
            self.note = self.note or f"a backward could not be timed ({type(error).__name__}: {error})"

    def _attach(self, node: Any, index: int, starts: bool, ends: bool) -> None:
        """Mark ``node`` for its class's wrapper where its class is timed, else hook it."""
        if self._types is not None and self._types.timed(type(node)):
            self._mark(node, index, starts, ends)
        else:
            self._hook(node, index, starts, ends)

    def _mark(self, node: Any, index: int, starts: bool, ends: bool) -> None:
        marks = getattr(node, _MARK, None)
        if marks is None:
            setattr(node, _MARK, [(self, index, starts, ends)])
        else:  # a timed call inside another: both time the node
            marks.append((self, index, starts, ends))

    def _hook(self, node: Any, index: int, starts: bool, ends: bool) -> None:
        # partial, not a lambda: the engine's call goes straight to the method (one Python frame, not two)
        if starts:
            node.register_prehook(functools.partial(self.started, index))
        if ends:
            node.register_hook(functools.partial(self.ended, index))

    def _walk_then_start(self, index: int, made: range, grad_outputs: Any) -> None:
        """The first node's pre-hook: find the last node now that the backward runs (the engine names the node it
        runs: the hook holds no node, so a graph never backwarded is freed as without us), then start the clock.
        The walk's own time is left out of the backward and, by ``walks``, of the step it fell in."""
        if index in self._starts:
            return  # a second backward through a retained graph: the first one's times stand
        began = time.perf_counter_ns()
        try:
            first = self._current()
            last = _lowest([first], made) if first is not None else None
            if last is not None:
                self._attach(last, index, False, True)
        except Exception as error:  # noqa: BLE001 - never raise inside the user's backward
            self.note = self.note or f"a backward could not be timed ({type(error).__name__}: {error})"
            last = None
        if last is None:
            self._watched.discard(index)  # nothing will end it: the profile window need not wait for it
            return
        self.started(index)
        self.walks.append((began, self._starts[index] - began))

    def started(self, index: int, *_: Any) -> None:
        """Call ``index``'s backward starts (a pre-hook's grads, if any, unused)."""
        if index not in self._starts:
            self._starts[index] = time.perf_counter_ns()
            if self.cuda:
                self._events[index] = self._record([])

    def ended(self, index: int, *_: Any) -> None:
        """Call ``index``'s backward ends (a hook's grads, if any, unused)."""
        if index in self._starts and index not in self._ends:
            self._ends[index] = time.perf_counter_ns()
            if index in self._events:
                self._record(self._events[index])

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


def _compiled_autograd_on() -> bool:
    """Whether compiled autograd's context is on now."""
    return bool(getattr(sys.modules.get("torch._dynamo.compiled_autograd"), "compiled_autograd_enabled", False))


def _compiled_autograd_switch() -> bool:
    """Whether compiled autograd's config switch is on: compiled frames then turn it on while they run, so a backward
    run inside one is compiled autograd's (the switch acts only through compiled frames: the eager run skips it)."""
    config = sys.modules.get("torch._dynamo.config")
    return bool(getattr(config, "compiled_autograd", False))


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
    ``next_functions`` read and freed after, so ids repeat (and one node can come back as two wrappers). Nothing the
    call made is numbered below its first node, and a node's inputs are numbered below it: so the walk first goes
    down from one root by its lowest-numbered input alone (a residual stream's sum leads to the call's first node
    through its earlier input, skipping each block's branch). Where that ends elsewhere (a tied head's transpose,
    whose input is no node of the call's), a search goes down lowest-numbered input first, stepping back from each
    dead end, and stops at the first node; where that is out of reach, every node reached is seen."""
    first = made.start
    if len(roots) == 1:
        node, number = roots[0], roots[0]._sequence_nr()
        while number != first:
            below, below_nr = None, number
            for child, _ in node.next_functions:
                if child is not None:
                    child_nr = child._sequence_nr()
                    if first <= child_nr < below_nr:
                        below, below_nr = child, child_nr
            if below is None:
                break
            node, number = below, below_nr
        if number == first:
            return node
    return _search(roots, made)


def _search(roots: list[Any], made: range) -> Any:
    """``_lowest``'s search: depth first, the lowest-numbered input on top, ending at the call's first node."""
    first, stop = made.start, made.stop
    seen = {node._sequence_nr() for node in roots}
    stack = sorted(roots, key=lambda node: node._sequence_nr(), reverse=True)  # the lowest on top
    lowest, lowest_nr = None, stop
    while stack:
        node = stack.pop()
        number = node._sequence_nr()
        if number < lowest_nr:
            lowest, lowest_nr = node, number
            if number == first:
                return node
        below = []
        for child, _ in node.next_functions:
            if child is None:
                continue
            child_nr = child._sequence_nr()
            if first <= child_nr < stop and child_nr not in seen:
                seen.add(child_nr)
                below.append((child_nr, child))
        if len(below) > 1:  # numbers are distinct: the lowest input goes on top
            below.sort(key=lambda pair: pair[0], reverse=True)
        stack.extend(child for _, child in below)
        if len(seen) > _MOST_NODES:
            return None
    return lowest
