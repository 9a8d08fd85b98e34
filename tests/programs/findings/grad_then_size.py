"""A training call, an evaluation under no_grad, then a training call at a new length: the third recompile fails
the evaluation version on grad mode and the first version on the size; the size is what the call changed."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(8, 8), backend="aot_eager")
    print(f"{model(torch.randn(8, 8)).sum().item():.4f}")
    with torch.no_grad():
        print(f"{model(torch.randn(8, 8)).sum().item():.4f}")
    for _ in range(3):
        print(f"{model(torch.randn(16, 8)).sum().item():.4f}")


if __name__ == "__main__":
    main()
