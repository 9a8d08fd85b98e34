"""A two-layer MLP compiled with Inductor: one forward and one backward pass."""

import torch


class MLP(torch.nn.Module):
    def __init__(self, features: int = 32, hidden: int = 64):
        super().__init__()
        self.fc1 = torch.nn.Linear(features, hidden)
        self.fc2 = torch.nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # add + relu + mul: elementwise work that Inductor fuses into one kernel
        return self.fc2(torch.relu(self.fc1(x) + 1.0) * 2.0)


def main() -> None:
    torch.manual_seed(0)
    model = MLP()
    compiled = torch.compile(model)  # backend="inductor" is the default
    x = torch.randn(8, 32)
    loss = compiled(x).pow(2).mean()
    loss.backward()
    print(f"loss {loss.item():.6f}  grad norm {model.fc1.weight.grad.norm().item():.6f}")


if __name__ == "__main__":
    main()
