"""One submodule compiled inside its model and called by the model's forward, counting its calls in an int attribute:
each call recompiles it, but it is one object, no layer of many compiled in a loop."""

import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.linear(x) * self.calls


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Scaled()
        self.inner.compile(backend="aot_eager")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x).relu()


model = Model()
for _ in range(3):
    out = model(torch.randn(4, 8))
print(f"{out.sum().item():.4f}")
