"""A block that takes its activation function as an argument; the sweep tries several."""
import torch
import torch.nn.functional as F


@torch.compile(backend="aot_eager")
def block(x, weight, activation):
    return activation(x @ weight) + x


def main():
    torch.manual_seed(0)
    weight = torch.randn(16, 16) * 0.1
    x = torch.randn(4, 16)
    for activation in (F.relu, F.gelu, torch.tanh, F.silu):
        for _ in range(2):
            y = block(x, weight, activation)
        print(activation.__name__, y.sum().item())


if __name__ == "__main__":
    main()
