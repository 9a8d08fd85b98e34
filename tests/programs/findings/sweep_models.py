"""A small sweep: one model per depth, each compiled at the same line; the models share their forward's code, so
one cache and one recompile limit, and the ninth model's calls run eager."""
import torch
from torch import nn


class Repeated(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.fc, self.depth = nn.Linear(8, 8), depth

    def forward(self, x):
        for _ in range(self.depth):  # an int attribute: a constant of each version
            x = self.fc(x).tanh()
        return x


def trial(depth: int) -> float:
    compiled = torch.compile(Repeated(depth), backend="aot_eager")
    return sum(compiled(torch.randn(4, 8)).sum().item() for _ in range(2))


def main():
    torch.manual_seed(0)
    for depth in range(1, 10):
        print(f"depth {depth}: {trial(depth):.4f}")


if __name__ == "__main__":
    main()
