"""The collectives inside a compile's graphs, read from the graphs torch printed: kind, order and size; and whether
ranks whose collective sequences differ can still meet."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tracers.tracefile.events import Artifact, Trace

# Graphs in the order a compile produces them; the later ones show what really runs (after AOTAutograd's
# partitioning and Inductor's post-grad passes, which reorder collectives to overlap them with compute).
GRAPHS = ("dynamo_output_graph", "aot_forward_graph", "aot_inference_graph", "aot_backward_graph",
          "inductor_post_grad_graph", "compiled_autograd_graph")
# A node line of a printed FX graph: ``name: "f32[8, 32][32, 1]cpu" = torch.ops.<namespace>.<op>(...)``.
# Functional collectives live in _c10d_functional (c10d_functional in older releases), in-place ones in c10d.
_NODE = re.compile(r'^\s*\w+: "([^"]*)" = torch\.ops\.(_c10d_functional|c10d_functional|c10d)\.(\w+)')
_WAITS = frozenset({"wait_tensor", "wait"})  # not a collective: where its result is first needed


@dataclass(frozen=True)
class Collective:
    graph: str  # which of the compile's graphs, e.g. aot_forward_graph
    op: str  # e.g. all_reduce, all_gather_into_tensor, reduce_scatter_tensor
    tensor: str  # the result's metadata as printed: dtype, shape, stride, device

    def __str__(self) -> str:
        return f"{self.op} {self.tensor} ({self.graph})"


def collectives_in(artifacts: list[Artifact]) -> tuple[Collective, ...]:
    """Every collective of one compile, graph by graph in pipeline order, each graph in node order."""
    found = []
    for name in GRAPHS:
        for artifact in artifacts:
            if artifact.name != name or not artifact.payload:
                continue
            for line in artifact.payload.splitlines():
                match = _NODE.match(line)
                if match and match[3] not in _WAITS:
                    found.append(Collective(name, match[3], re.sub(r"\bcuda:\d+\b", "cuda", match[1])))
    return tuple(found)


def meets_others(trace: Trace) -> bool:
    """Whether the trace shows its rank taking part in collectives: a process group it made (the tracer records its
    backend), or a collective inside its compiled graphs or Inductor's schedule (all a TORCH_TRACE log can show)."""
    if (trace.info.rank or {}).get("backend"):
        return True
    return bool(collectives_in(trace.artifacts)) or any(
        artifact.name == "inductor_collective_schedule" and _listed_any(artifact.payload) for artifact in trace.artifacts)


def _listed_any(payload: str | None) -> bool:
    """Whether a JSON payload is a list with something in it (a damaged one: nothing shown)."""
    try:
        value = json.loads(payload or "[]")
    except ValueError:
        return False
    return isinstance(value, list) and bool(value)


@dataclass(frozen=True)
class Step:
    """One collective in a rank's sequence: its operation and size (if known), compared; the graph that issues it
    (compile id and frame: ranks may compile other frames under one id), not compared, as tlparse compares ops only."""

    op: str
    tensor: str = ""
    compile_id: str = field(default="", compare=False)
    frame: str = field(default="", compare=False)


def operation(op: str) -> str:
    """``all_reduce_`` and ``all_reduce``: one operation (in place or functional), as the ranks pair them."""
    return op.removesuffix("_")


@dataclass(frozen=True)
class Parting:
    """Where ranks' collective sequences first differ, and whether they can still meet there."""

    index: int  # 0-based position of the first difference
    at: dict[int, Step | None]  # each rank's collective there (None: its sequence ended before)
    cannot_meet: bool


def parting(sequences: dict[int, Sequence[Step]]) -> Parting | None:
    """Each rank's whole sequence compared, as tlparse compares them; None when they are the same.

    A log holds only the collectives of compiled graphs, not those a rank makes eagerly between calls: a rank whose
    sequence ends early or differs across two graphs may make up the difference outside them (the ranks then stay
    in step). Only inside one graph does nothing else run between its collectives, so the ranks cannot meet where,
    at the same place of the same graph, each issues a collective and the operations differ."""
    if len({tuple(sequence) for sequence in sequences.values()}) < 2:
        return None
    shortest = min(len(sequence) for sequence in sequences.values())
    index = next((i for i in range(shortest) if len({sequence[i] for sequence in sequences.values()}) > 1), shortest)
    at = {rank: sequence[index] if index < len(sequence) else None for rank, sequence in sequences.items()}
    steps = list(at.values())
    cannot_meet = (all(step is not None and step.compile_id for step in steps)
                   and len({(step.compile_id, step.frame) for step in steps}) == 1  # type: ignore[union-attr]
                   and len({operation(step.op) for step in steps}) > 1)  # type: ignore[union-attr]
    return Parting(index, at, cannot_meet)


def steps_that_run(collectives: Sequence[Collective], compile_id: str, frame: str = "") -> tuple[Step, ...]:
    """A compile's collectives in the last graph of the pipeline that holds any: what runs, in node order."""
    last = collectives[-1].graph if collectives else None
    return tuple(Step(c.op, re.sub(r"\bcuda:\d+\b", "cuda", c.tensor), compile_id, frame)
                 for c in collectives if c.graph == last)
