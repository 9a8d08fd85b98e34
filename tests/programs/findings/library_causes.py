"""One line of the user's reaches two library lines that break the graph for two reasons: two causes."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return fakelib.checked_loss(self.linear(x), labels)


def main():
    torch.manual_seed(0)
    model = torch.compile(Model(), backend="aot_eager")
    for _ in range(2):
        out = model(torch.randn(4, 8), torch.randint(0, 4, (4,)))  # the user's line both breaks are reached from
    print(f"{out.item():.4f}")


if __name__ == "__main__":
    main()
