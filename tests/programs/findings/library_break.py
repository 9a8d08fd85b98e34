"""A model whose library code logs: every graph break is in the library, reached from one line of this script."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fakelib.loss(self.linear(x))


model = torch.compile(Model(), backend="aot_eager")
for _ in range(3):
    out = model(torch.randn(4, 8))  # the user's line every break is reached from
print(f"{out.item():.4f}")
