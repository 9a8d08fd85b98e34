"""Compiled autograd: a training step whose backward, with a gradient hook, is captured at run time as one graph."""

import sys

import torch


class MLP(torch.nn.Module):
    def __init__(self, features: int = 32, hidden: int = 64):
        super().__init__()
        self.fc1 = torch.nn.Linear(features, hidden)
        self.fc2 = torch.nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"  # e.g. aot_eager to skip code generation
    # The config switch, not the private compiled_autograd._enable context: it is the entry point
    # torch documents, it exists unchanged in 2.11 and 2.13, and it compiles the backward graph with
    # the same torch.compile settings as the step. torch.compile reads it when the step is wrapped,
    # and turns compiled autograd on only while the compiled step runs, so backward() is called inside.
    torch._dynamo.config.compiled_autograd = True
    torch.manual_seed(0)
    model = MLP()
    # A hook the autograd engine runs on fc1.weight's gradient: AOTAutograd traces the backward
    # from the forward graph alone and never sees it; compiled autograd puts it into the graph.
    model.fc1.weight.register_hook(lambda grad: grad.clamp(-0.01, 0.01))

    @torch.compile(backend=backend)
    def train_step(x: torch.Tensor) -> torch.Tensor:
        loss = model(x).pow(2).mean()
        loss.backward()  # a graph break for Dynamo; the backward is captured by compiled autograd
        return loss

    for _ in range(2):  # the second step's autograd graph has the same structure: a cache hit
        model.zero_grad(set_to_none=True)
        loss = train_step(torch.randn(8, 32))
    clipped = model.fc1.weight.grad.abs().max().item()
    print(f"loss {loss.item():.6f}  fc2 grad norm {model.fc2.weight.grad.norm().item():.6f}  "
          f"fc1 grad max |g| {clipped:.4f}")


if __name__ == "__main__":
    main()
