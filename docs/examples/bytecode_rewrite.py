"""A frame split in two by an explicit graph break, so torch also records the rewritten bytecode it runs."""

import torch


def normalize(x: torch.Tensor) -> torch.Tensor:
    y = torch.relu(x) + 1
    torch._dynamo.graph_break()  # split here: the rest becomes a resume function, compiled on its own
    return y / y.sum()


def main() -> None:
    torch.manual_seed(0)
    compiled = torch.compile(normalize, backend="aot_eager")  # aot_eager: Dynamo's output is the point
    out = compiled(torch.randn(8))
    print(f"{out.sum().item():.6f}")


if __name__ == "__main__":
    main()
