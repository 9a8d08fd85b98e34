"""A library model whose embeddings are frozen and whose own method registered a forward hook that makes their output
require grad: the hook runs inside the compiled forward and breaks there."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent / "site-packages"))
import fakelib  # noqa: E402


def main() -> None:
    torch.manual_seed(0)
    model = fakelib.Embedder()
    model.embed.weight.requires_grad_(False)  # frozen, as adapters leave them
    model.enable_input_require_grads()
    compiled = torch.compile(model, backend="aot_eager")
    for step in range(3):
        loss = compiled(torch.randint(0, 16, (4, 6))).square().mean()
        loss.backward()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
