"""A library's loop compiles the model for the user, and the model sets a config field on its first call (as
transformers' models set config.problem_type): the size recompile also fails on that field, which is the user's to set
before training. ``repeat``: the first size comes twice, so the field's change recompiles on its own."""

import sys
from pathlib import Path
import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


class Config:
    """A model's configuration, as a library's models carry one."""

    def __init__(self) -> None:
        self.problem_type = None


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 2)
        self.config = Config()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.config.problem_type is None:  # set on the first call: the next version's guard pins it
            self.config.problem_type = "regression"
        return self.linear(x).relu()


def main():
    torch.manual_seed(0)
    sizes = (4, 4, 6) if sys.argv[1:] == ["repeat"] else (4, 6, 8)
    batches = [torch.randn(rows, 8) for rows in sizes]
    losses = fakelib.fit(Net(), batches)  # the library compiles
    print(" ".join(f"{loss:.4f}" for loss in losses))


if __name__ == "__main__":
    main()
