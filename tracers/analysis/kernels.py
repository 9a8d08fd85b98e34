"""Each kernel Inductor wrote tied to the user lines its FX nodes came from, and each line to its kernels."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace

from .code_comments import GRAPHS, calls, node_lines
from .one_time import ISA_CHECK

RECORD = "kernel_origins"  # capture/kernel_origins.py files one per kernel written
# Work that happens inside the first kernel's codegen once per process, not because of that kernel: the CPU's
# vector instruction sets are learnt by compiling a test program for each (torch/_inductor/cpu_vec_isa.py).
ONE_TIME_TARGETS = frozenset({ISA_CHECK})
_CACHE_HITS = ("fx_graph_cache_hit", "fx_graph_bundled_cache_hit", "aotautograd_cache_hit")


@dataclass(frozen=True)
class UserLine:
    """One frame of an FX node's stack trace: the innermost is the line that created the node."""

    file: str
    line: int
    function: str
    code: str

    @property
    def label(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"


@dataclass(frozen=True)
class Kernel:
    """One kernel of one compile: generated (C++ or Triton) or an extern call the wrapper makes."""

    compile_id: str
    name: str
    extern: bool
    nodes: tuple[str, ...]  # the post-grad FX nodes it computes, in graph order
    ops: tuple[str, ...]
    stacks: tuple[tuple[UserLine, ...], ...]  # each distinct stack of those nodes, outermost frame first
    codegen_ns: int | None  # the codegen steps that wrote it (None for an extern call, or when none was seen)
    written: int  # how often Inductor wrote it (identical code is written once and called again)
    # "codegen": read where Inductor wrote it; "output code": from the comments of code a cache supplied (or a
    # torch that does not name its kernels to the tracer), which name Triton kernels and extern calls only.
    source: str = "codegen"
    one_time_ns: int = 0  # one-time setup that ran inside its codegen (left out of codegen_ns)

    @property
    def lines(self) -> tuple[UserLine, ...]:
        """The user lines behind it: the innermost frame of each stack, in order, once each."""
        return tuple(dict.fromkeys(stack[-1] for stack in self.stacks if stack))


@dataclass(frozen=True)
class LineKernels:
    """The other direction: one user line and the kernels its nodes went into."""

    line: UserLine
    kernels: tuple[Kernel, ...]


@dataclass(frozen=True)
class KernelMap:
    kernels: tuple[Kernel, ...]  # by compile, then in the order Inductor wrote them
    # Compiles whose Inductor output came from a cache: no codegen ran, so no kernel could be tied to a line.
    from_cache: tuple[str, ...]

    @property
    def one_time_ns(self) -> int:
        """One-time setup that ran inside some kernel's codegen (the CPU's vector-ISA check), in all."""
        return sum(kernel.one_time_ns for kernel in self.kernels)

    def by_line(self) -> tuple[LineKernels, ...]:
        found: dict[UserLine, list[Kernel]] = {}
        for kernel in self.kernels:
            for line in kernel.lines:
                found.setdefault(line, []).append(kernel)
        return tuple(LineKernels(line, tuple(kernels)) for line, kernels in found.items())

    @property
    def generated(self) -> tuple[Kernel, ...]:
        return tuple(kernel for kernel in self.kernels if not kernel.extern)


def kernel_map(trace: Trace) -> KernelMap:
    durations = {span.id: span.duration_ns for span in trace.spans}
    one_time = _one_time_within(trace)
    merged: dict[tuple[str, str], dict] = {}
    frames: dict[int, UserLine] = {}  # each frame is written once, by the first record that uses it
    for artifact in sorted((a for a in trace.artifacts if a.name == RECORD), key=lambda a: a.id):
        meta = artifact.metadata
        for number, frame in (meta.get("frames") or {}).items():
            frames[int(number)] = UserLine(str(frame[0]), int(frame[1]), str(frame[2]), str(frame[3]))
        key = (artifact.compile_id or "?", str(meta.get("kernel", "?")))
        entry = merged.setdefault(key, {"extern": bool(meta.get("extern")), "nodes": {}, "ops": {}, "stacks": {},
                                        "spans": {}, "written": 0})
        entry["written"] += 1
        for name in meta.get("nodes", ()):
            entry["nodes"].setdefault(name, None)
        for op in meta.get("ops", ()):
            entry["ops"].setdefault(op, None)
        for stack in meta.get("stacks", ()):
            entry["stacks"].setdefault(tuple(_frame(item, frames) for item in stack if _frame(item, frames)), None)
        for span_id in meta.get("codegen_spans", ()):
            entry["spans"].setdefault(span_id, None)
    kernels = []
    for (compile_id, name), entry in merged.items():
        # No codegen step seen (a template kernel is written outside codegen_node): unknown, not zero.
        setup = sum(one_time.get(span_id, 0) for span_id in entry["spans"])
        codegen = None if entry["extern"] or not entry["spans"] else \
            sum(durations.get(span_id, 0) for span_id in entry["spans"]) - setup
        kernels.append(Kernel(compile_id, name, entry["extern"], tuple(entry["nodes"]), tuple(entry["ops"]),
                              tuple(entry["stacks"]), codegen, entry["written"], one_time_ns=setup))
    with_kernels = {kernel.compile_id for kernel in kernels}
    kernels += _from_comments(trace, with_kernels)
    kernels.sort(key=lambda kernel: sort_key(kernel.compile_id))  # stable: written order within a compile
    cached = {artifact.compile_id or "?" for artifact in trace.artifacts
              if artifact.kind == "cache" and artifact.name in _CACHE_HITS}
    return KernelMap(tuple(kernels), tuple(sorted(cached - with_kernels, key=sort_key)))


def _one_time_within(trace: Trace) -> dict[int, int]:
    """Per span, the one-time setup (ONE_TIME_TARGETS) that ran inside it, at any depth."""
    parents = {span.id: span.parent for span in trace.spans}
    inside: dict[int, int] = {}
    for span in trace.spans:
        if span.target in ONE_TIME_TARGETS:
            parent, seen = span.parent, set()
            while parent is not None and parent not in seen:  # a damaged trace may link a span to itself
                seen.add(parent)
                inside[parent] = inside.get(parent, 0) + span.duration_ns
                parent = parents.get(parent)
    return inside


def _frame(item: object, frames: dict[int, UserLine]) -> UserLine | None:
    """A stack's entry: a number in the trace's frame table, or (as first written) the frame itself."""
    if isinstance(item, int):
        return frames.get(item)
    if isinstance(item, (list, tuple)) and len(item) == 4:
        return UserLine(str(item[0]), int(item[1]), str(item[2]), str(item[3]))
    return None


def _from_comments(trace: Trace, seen: set[str]) -> list[Kernel]:
    """Kernels of the compiles whose codegen the trace did not see, from their output code's comments."""
    codes: dict[str, list[str]] = {}
    graphs: dict[str, list] = {}
    for artifact in trace.artifacts:
        compile_id = artifact.compile_id or "?"
        if compile_id in seen:
            continue
        if artifact.name == "inductor_output_code" and artifact.payload:
            codes.setdefault(compile_id, []).append(artifact.payload)
        elif artifact.name in GRAPHS:
            graphs.setdefault(compile_id, []).append(artifact)
    kernels = []
    for compile_id, payloads in codes.items():
        lines = node_lines(graphs.get(compile_id, []))
        merged: dict[str, dict] = {}
        for payload in payloads:
            for name, nodes, definition in calls(payload):
                entry = merged.setdefault(name, {"nodes": {}, "stacks": {}, "written": 0})
                entry["written"] += not definition  # here: how often the code calls it
                for node in nodes:
                    entry["nodes"].setdefault(node, None)
                    if node in lines:
                        entry["stacks"].setdefault((UserLine(*lines[node]),), None)
        kernels += [Kernel(compile_id, name, not name.startswith(("triton_", "cpp_")), tuple(entry["nodes"]), (),
                           tuple(entry["stacks"]), None, entry["written"], "output code")
                    for name, entry in merged.items()]
    return kernels
