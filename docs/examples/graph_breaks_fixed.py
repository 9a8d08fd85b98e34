"""graph_breaks.py without its graph breaks: the print moved out, the .item() branch turned into torch.where."""

import sys

import torch


def scale_and_report(x: torch.Tensor) -> torch.Tensor:
    y = torch.sin(x) * 2
    # Both branches are computed and the condition stays a tensor: no Python bool, no .item().
    return torch.where(y.sum() > 0, y + 1, y - 1)


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"  # e.g. aot_eager to skip code generation
    torch.manual_seed(0)
    # fullgraph=True turns any graph break into an error: this program must compile to one graph.
    compiled = torch.compile(scale_and_report, backend=backend, fullgraph=True)
    first = compiled(torch.randn(16))
    print("half way")  # the side effect now runs outside the compiled function
    second = compiled(torch.randn(32))  # new shape: the guards fail, Dynamo recompiles (dynamic now)
    print("half way")
    print(f"{first.sum().item():.6f} {second.sum().item():.6f}")


if __name__ == "__main__":
    main()
