"""A module that counts its calls in self.calls and scales its output by the count."""
import torch


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.linear(x) * self.calls


model = torch.compile(Scaled(), backend="aot_eager")
for _ in range(5):
    model(torch.randn(4, 8))
