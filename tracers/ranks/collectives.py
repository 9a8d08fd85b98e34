"""The collectives inside a compile's graphs, read from the graphs torch printed: kind, order and size."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracers.tracefile.events import Artifact

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
