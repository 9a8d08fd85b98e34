"""Training calls at three lengths with every size static and the recompile limit lowered to 4, and one evaluation
under no_grad: the frame fills its 4 versions, one of them for grad mode."""
import torch
import torch._dynamo
from torch import nn


def main():
    torch.manual_seed(0)
    torch._dynamo.config.recompile_limit = 4
    model = torch.compile(nn.Linear(8, 8), backend="aot_eager", dynamic=False)
    for _ in range(2):
        print(f"{model(torch.randn(8, 8)).sum().item():.4f}")
    with torch.no_grad():
        for _ in range(2):
            print(f"{model(torch.randn(8, 8)).sum().item():.4f}")
    for rows in (16, 24):
        print(f"{model(torch.randn(rows, 8)).sum().item():.4f}")


if __name__ == "__main__":
    main()
