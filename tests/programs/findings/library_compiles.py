"""The user never calls torch.compile: a library's training loop compiles the model for them."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x).relu()


def main():
    torch.manual_seed(0)
    batches = [torch.randn(rows, 8) for rows in (4, 6, 8)]
    losses = fakelib.fit(Net(), batches)  # the library compiles
    print(" ".join(f"{loss:.4f}" for loss in losses))


if __name__ == "__main__":
    main()
