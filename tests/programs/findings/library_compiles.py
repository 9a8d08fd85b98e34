"""The user never calls torch.compile: a library's training loop compiles the model for them."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


def main():
    torch.manual_seed(0)
    losses = fakelib.fit(torch.nn.Linear(8, 2), [torch.randn(4, 8), torch.randn(4, 8)])  # the library compiles
    print(" ".join(f"{loss:.4f}" for loss in losses))


if __name__ == "__main__":
    main()
