"""module_step_counter.py with its finding's fix applied: "keep it in a tensor buffer (register_buffer) updated in
place": the call count is a buffer incremented in place, and the warmup scale is computed from it with tensor ops."""
import torch
from torch import nn


class WarmupNorm(nn.Module):
    def __init__(self, dim, warmup=20):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.warmup = warmup
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1
        scale = torch.clamp(self.calls / self.warmup, max=1.0)
        return self.norm(x) * scale


def main():
    torch.manual_seed(0)
    model = torch.compile(WarmupNorm(16), backend="aot_eager")
    for step in range(12):
        y = model(torch.randn(4, 16))
    print(model.calls.item(), y.abs().mean().item())


if __name__ == "__main__":
    main()
