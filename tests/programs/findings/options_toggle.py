"""Options a caller toggles (a True/False keyword, a reduction given as a string) and a layer picked from a
ModuleList by a Python int: each value compiles its own version, and no tensor can stand in for them."""
import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x, target, return_tuple=False, reduction="mean"):
        out = self.layers[0](x)
        loss = F.mse_loss(out, target, reduction=reduction)
        if return_tuple:
            return (loss, out)
        return {"loss": loss, "out": out}


@torch.compile(backend="aot_eager")
def run_layer(layers, i, x):
    return layers[i](x).relu()


def main():
    torch.manual_seed(0)
    head = Head()
    model = torch.compile(head, backend="aot_eager")
    x, target = torch.randn(4, 8), torch.randn(4, 8)
    for return_tuple, reduction in ((False, "mean"), (True, "mean"), (False, "sum"), (True, "sum")):
        out = model(x, target, return_tuple=return_tuple, reduction=reduction)
        loss = out[0] if return_tuple else out["loss"]
        print(f"{return_tuple} {reduction}: {loss.item():.4f}")
    h = x
    for i in range(3):
        h = run_layer(head.layers, i, h)
    print(f"layers: {h.sum().item():.4f}")


if __name__ == "__main__":
    main()
