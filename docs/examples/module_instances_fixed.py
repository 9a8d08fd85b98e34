"""module_instances.py with the factor as a buffer: a tensor's value is data, not guarded, so twelve instances share
one version of forward and one of its resume function."""

import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


class Scale(torch.nn.Module):
    def __init__(self, factor: int):
        super().__init__()
        self.register_buffer("factor", torch.tensor(float(factor)))  # was: self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sin(x)
        print("scaling")  # a graph break: the rest of forward is a resume function, called with self
        return y * self.factor


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
    torch.manual_seed(0)
    x = torch.randn(8)
    layers = [torch.compile(Scale(factor), backend=backend) for factor in range(2, 14)]
    with region("eight instances: one forward, one resume version"):
        outputs = [layer(x) for layer in layers[:8]]
    with region("four more: no compile"):
        outputs += [layer(x) for layer in layers[8:]]
    print(" ".join(f"{o.sum().item():.3f}" for o in outputs))


if __name__ == "__main__":
    main()
