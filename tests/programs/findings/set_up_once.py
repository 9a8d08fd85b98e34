"""A library model installs its output hooks on the first call that asks for them: every break and recompile of that
set-up is one cause, which an eager first call removes."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


def main():
    torch.manual_seed(0)
    model = torch.compile(fakelib.CapturingModel(), backend="aot_eager")
    for rows in (4, 6, 9, 5):
        out = model(torch.randn(rows, 8), capture=True)  # the user's line that reaches the set-up
    print(f"{out.sum().item():.4f} {sorted(model.captured)}")


if __name__ == "__main__":
    main()
