"""Greedy steps over a key cache kept in a dict: the prompt, then one token a step while the cache grows."""
import torch
from torch import nn


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.cache = {}

    def forward(self, x):
        k = self.proj(x)
        if "k" in self.cache:
            k = torch.cat([self.cache["k"], k], dim=1)
        self.cache["k"] = k
        return (x @ k.transpose(1, 2)).softmax(-1).sum()


def main():
    torch.manual_seed(0)
    step = Step()
    compiled = torch.compile(step, backend="aot_eager")
    with torch.no_grad():
        total = compiled(torch.randn(1, 5, 8))
        for _ in range(4):
            total = total + compiled(torch.randn(1, 1, 8))
    print(f"{total.item():.4f}")


if __name__ == "__main__":
    main()
