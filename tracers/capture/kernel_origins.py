"""Which FX nodes, and which user lines, each kernel Inductor generates came from, read where torch names it."""

from __future__ import annotations

import re
from typing import Any

from tracers.tracefile.events import Trace

from .recorder import Recorder

# Inductor calls this once for every kernel it writes (C++ and Triton, and each extern call of the wrapper)
# with the scheduled nodes and the kernel's name, whatever its provenance setting: with tracking off (the
# default) it returns at once. torch/_inductor/debug.py; callers in codegen/cpp.py (``flush``),
# codegen/triton.py and scheduler.py (``codegen_comment``) and ir.py (``ExternKernel.codegen_comment``).
TARGET = "torch._inductor.debug:set_kernel_post_grad_provenance_tracing"
# The steps that generate a kernel's code: a C++ kernel gathers several of them before it is written.
CODEGEN_TARGETS = (
    "torch._inductor.codegen.cpp:CppScheduling.codegen_node",
    "torch._inductor.codegen.simd:SIMDScheduling.codegen_node",
)
RECORD = "kernel_origins"

# One entry of an FX node's ``stack_trace`` (traceback.format_list's layout): where, then the line's code.
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>[^\n]+)\n(?P<code>[^\n]*)')


def parse_stack(text: str) -> tuple[tuple[str, int, str, str], ...]:
    """``(file, line, function, code)`` per frame of an FX node's stack trace, outermost first."""
    return tuple((match["file"], int(match["line"]), match["function"].strip(), match["code"].strip())
                 for match in _FRAME.finditer(text or ""))


class KernelOrigins:
    """Files one ``kernel_origins`` record per kernel: its name, FX nodes, their stacks and codegen spans.
    A session's collector (capture/collector.py)."""

    what = "the kernels' origins"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        # Scheduler node name -> the codegen_node span that generated it, until its kernel is written.
        self._codegen_span: dict[str, int] = {}
        self._stacks: dict[str, tuple[tuple[str, int, str, str], ...]] = {}  # parsed once per stack text
        self._frame_ids: dict[tuple[str, int, str, str], int] = {}
        self._order: tuple[Any, dict[int, int]] = (None, {})  # the graph being generated, its nodes' positions

    def start(self) -> None:
        self.recorder.result_observers[TARGET] = self.file_kernel
        for target in CODEGEN_TARGETS:
            self.recorder.result_observers[target] = self.note_codegen

    def note_codegen(self, recorder: Recorder, args: tuple[Any, ...], result: Any) -> None:
        """After ``codegen_node(self, node)``: remember which span generated each of the node's parts."""
        span = recorder.current_span()
        if span is None or len(args) < 2:
            return
        for snode in _parts(args[1]):
            self._codegen_span[str(snode.get_name())] = span.id

    def file_kernel(self, recorder: Recorder, args: tuple[Any, ...], result: Any) -> None:
        """After ``set_kernel_post_grad_provenance_tracing(node_schedule, kernel_name, is_extern=False)``."""
        if len(args) < 2 or not args[1]:
            return
        schedule, kernel = args[0], str(args[1])
        # torch passes ``is_extern=True`` by keyword, which observers do not see: an extern call's schedule is
        # the one IR node, a generated kernel's a list of scheduler nodes.
        extern = not isinstance(schedule, (list, tuple))
        names, ops, stacks, spans = [], {}, {}, []
        parts = [] if extern else _parts(schedule)
        for snode in parts:
            span_id = self._codegen_span.pop(str(snode.get_name()), None)
            if span_id is not None and span_id not in spans:
                spans.append(span_id)
        own = recorder.current_span()  # this call's own span: a Triton kernel is written inside its codegen_node
        parent = recorder.open_span(own.parent) if own is not None and own.parent is not None else None
        if parent is not None and parent.target in CODEGEN_TARGETS and parent.id not in spans:
            spans.append(parent.id)
        for node in self._fx_nodes(schedule, parts, extern):
            names.append(node.name)
            ops.setdefault(str(getattr(node, "target", "")), None)
            text = node.meta.get("stack_trace") if isinstance(getattr(node, "meta", None), dict) else None
            if text:
                stack = self._stacks.get(text)
                if stack is None:
                    stack = self._stacks[text] = parse_stack(text)
                if stack:
                    stacks.setdefault(stack, None)
        new_frames: dict[str, list[Any]] = {}
        numbered = [[self._frame_id(frame, new_frames) for frame in stack] for stack in stacks]
        metadata = {
            "kernel": kernel, "extern": extern, "nodes": names, "ops": [op for op in ops if op],
            "frames": new_frames, "stacks": numbered, "codegen_spans": spans,
        }
        recorder.add_artifact("kernel", RECORD, None, metadata, None, 0)

    def _frame_id(self, frame: tuple[str, int, str, str], new_frames: dict[str, list[Any]]) -> int:
        """A number for ``frame``; the first record that uses it carries it (``frames``), later ones the number
        only: the model's outer frames are in every kernel's stacks, and written out each time they were most of
        the trace file (analysis/kernels.py reads the records in order)."""
        number = self._frame_ids.get(frame)
        if number is None:
            number = self._frame_ids[frame] = len(self._frame_ids)
            new_frames[str(number)] = list(frame)
        return number

    def _fx_nodes(self, schedule: Any, parts: list[Any], extern: bool) -> list[Any]:
        """The post-grad FX nodes behind a kernel (each IR node's ``origins``), in graph order."""
        seen: dict[int, Any] = {}
        # An extern call's own node (the mm of a linear): its ``origins`` also hold the nodes whose results it reads.
        origin = getattr(schedule, "origin_node", None) if extern else None
        if origin is not None and getattr(origin, "op", None) == "call_function":
            return [origin]
        sources = [schedule] if extern else [getattr(part, "node", None) for part in parts]
        for source in sources:
            for node in getattr(source, "origins", None) or ():
                if getattr(node, "op", None) == "call_function":
                    seen.setdefault(id(node), node)
        nodes = list(seen.values())
        graphs = {id(getattr(node, "graph", None)) for node in nodes}
        if len(graphs) == 1 and nodes:
            order = self._position_in(nodes[0].graph)
            nodes.sort(key=lambda node: order.get(id(node), 0))
        return nodes

    def _position_in(self, graph: Any) -> dict[int, int]:
        """Each node's position in its graph, computed once per graph: Inductor writes one graph's kernels at a time."""
        if self._order[0] is not graph:
            self._order = (graph, {id(node): index for index, node in enumerate(graph.nodes)})
        return self._order[1]

    def stop(self) -> None:
        """Let go of the last graph (the session holds this object until the trace is written)."""
        self._order = (None, {})
        self._codegen_span.clear()

    def contribute(self, trace: Trace) -> None:
        pass  # its records are the recorder's artifacts


def _parts(schedule: Any) -> list[Any]:
    """The scheduler nodes of a schedule (a list, or one possibly fused node), markers left out."""
    items = schedule if isinstance(schedule, (list, tuple)) else [schedule]
    parts = []
    for item in items:
        get_nodes = getattr(item, "get_nodes", None)
        if get_nodes is None:  # EnableReduction/DisableReduction markers in a Triton node schedule
            continue
        parts.extend(node for node in get_nodes() if hasattr(node, "get_name"))
    return parts
