"""Graph breaks (a print and data-dependent control flow) and a recompile caused by a new input shape."""

import sys

import torch


def scale_and_report(x: torch.Tensor) -> torch.Tensor:
    y = torch.sin(x) * 2
    print("half way")  # a side effect Dynamo cannot put in a graph: break
    if y.sum().item() > 0:  # control flow on a tensor's value: break
        return y + 1
    return y - 1


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"  # e.g. aot_eager to skip code generation
    torch.manual_seed(0)
    compiled = torch.compile(scale_and_report, backend=backend)
    first = compiled(torch.randn(16))
    second = compiled(torch.randn(32))  # new shape: the guards fail, Dynamo recompiles (dynamic now)
    print(f"{first.sum().item():.6f} {second.sum().item():.6f}")


if __name__ == "__main__":
    main()
