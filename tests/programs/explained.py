"""torch._dynamo.explain on a function with a graph break; explain resets Dynamo before and after itself."""

import torch

from ground_truth import write


def scaled(x):  # function calls only: explain's ops_per_graph leaves method calls out
    y = torch.sin(x) * 2
    print("side effect")  # print is a graph break
    return torch.cos(y) + 1


opt = torch.compile(scaled, backend="eager")
opt(torch.randn(8))  # call: compiled
explanation = torch._dynamo.explain(scaled)(torch.randn(8))
write(graph_count=explanation.graph_count, graph_break_count=explanation.graph_break_count,
      ops_per_graph=[len(ops) for ops in explanation.ops_per_graph])
