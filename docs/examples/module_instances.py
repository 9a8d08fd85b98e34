"""Twelve instances of one module class whose forward breaks: the resume function's cache entries are shared by every
instance, so eight per-instance constants use up its recompile limit."""

import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


class Scale(torch.nn.Module):
    def __init__(self, factor: int):
        super().__init__()
        self.factor = factor  # an int attribute of a module: guarded by value, never made symbolic

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sin(x)
        print("scaling")  # a graph break: the rest of forward is a resume function, called with self
        return y * self.factor


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
    torch.manual_seed(0)
    x = torch.randn(8)
    layers = [torch.compile(Scale(factor), backend=backend) for factor in range(2, 14)]
    with region("eight instances: one forward, eight resume versions"):
        outputs = [layer(x) for layer in layers[:8]]
    with region("four more: the resume function's limit is spent"):
        outputs += [layer(x) for layer in layers[8:]]
    print(" ".join(f"{o.sum().item():.3f}" for o in outputs))


if __name__ == "__main__":
    main()
