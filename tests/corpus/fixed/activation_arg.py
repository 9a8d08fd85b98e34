"""activation_arg.py with its finding's fix applied: "compile only the part that does not depend on it": the matmul
is compiled, the activation chosen by the sweep is applied outside the compiled function."""
import torch
import torch.nn.functional as F


@torch.compile(backend="aot_eager")
def project(x, weight):
    return x @ weight


def block(x, weight, activation):
    return activation(project(x, weight)) + x


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
