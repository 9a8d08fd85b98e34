"""A compiled model and a compiled loss, both called again under torch.no_grad() for an evaluation: one change of
grad mode, seen by both functions."""
import torch
from torch import nn


@torch.compile(backend="aot_eager")
def loss_of(logits, target):
    return nn.functional.cross_entropy(logits, target)


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(8, 3), backend="aot_eager")
    x, y = torch.randn(6, 8), torch.randint(0, 3, (6,))
    for _ in range(2):
        loss = loss_of(model(x), y)
        loss.backward()
    with torch.no_grad():
        print(f"eval loss {loss_of(model(x), y).item():.4f}")


if __name__ == "__main__":
    main()
