"""An EMA-style module that counts its own calls in an int attribute and uses it in forward (a warmup)."""
import torch
from torch import nn


class WarmupNorm(nn.Module):
    def __init__(self, dim, warmup=20):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.warmup = warmup
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        scale = min(1.0, self.calls / self.warmup)
        return self.norm(x) * scale


def main():
    torch.manual_seed(0)
    model = torch.compile(WarmupNorm(16), backend="aot_eager")
    for step in range(12):
        y = model(torch.randn(4, 16))
    print(model.calls, y.abs().mean().item())


if __name__ == "__main__":
    main()
