"""A library's loop passes its own cache to the compiled model and fills it after the first step: the recompile on the
cache's flag is the library's doing, with nothing of the user's to set."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


def main():
    torch.manual_seed(0)
    model = torch.compile(fakelib.CachedDecoder(), backend="aot_eager")
    with torch.no_grad():
        out = fakelib.decode(model, torch.randn(2, 8), steps=4)  # the user's line: the library calls the model
    print(f"{out.sum().item():.4f}")


if __name__ == "__main__":
    main()
