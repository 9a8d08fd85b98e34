"""A small program for the release comparison: one graph break, one kernel per graph, its torch named on stdout."""

import torch


def step(x: torch.Tensor) -> torch.Tensor:
    y = torch.relu(x) * 2
    print("between the graphs")  # a side effect Dynamo cannot put in a graph: a break
    return y + 1


if __name__ == "__main__":
    compiled = torch.compile(step)
    compiled(torch.randn(8))
    print(f"ran with torch {torch.__version__}")
