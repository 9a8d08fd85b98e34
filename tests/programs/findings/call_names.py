"""A library model called the way users call them: inside a loss call, and through a ``*args, **kwargs`` wrapper with
keywords; each last batch is shorter. Torch names the library's parameters (``x``, ``kwargs['tokens']``)."""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent / "site-packages"))
import fakelib  # noqa: E402


@fakelib.passes_through
def embed(tokens, weight):
    return tokens @ weight


def main() -> None:
    model = torch.compile(fakelib.Encoder(), backend="aot_eager")
    compiled_embed = torch.compile(embed, backend="aot_eager")
    weight = torch.randn(8, 8)
    target = torch.zeros(4, 2)
    for batch in (4, 4, 3):
        images = torch.randn(batch, 8)
        loss = F.mse_loss(model(images), target[:batch])  # the user's name is `images`, the library's `x`
        ids = torch.randn(batch + 1, 8)
        total = compiled_embed(tokens=ids, weight=weight).sum()  # through the wrapper, by keyword
    print(f"{loss.item() + total.item():.4f}")


main()
