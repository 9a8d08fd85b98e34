"""What a guard tree costs on every call, and how much a guard filter takes off it."""

import sys

import torch


class Block(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.fc = torch.nn.Linear(width, width)

    def forward(self, x):
        return x + torch.relu(self.fc(self.norm(x)))


class Stack(torch.nn.Module):
    def __init__(self, width: int = 32, depth: int = 4):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def run_guarded(model, x):
    return model(x)


def run_filtered(model, x):
    return model(x)


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    torch.manual_seed(0)
    x = torch.randn(8, 32)
    model = Stack()
    # One model, two compiled entry points (two code objects, so two cache entries): every guard (0/0),
    # then the same graph without the guards on nn.Module state (1/0).
    guarded = torch.compile(run_guarded, backend=backend)
    filtered = torch.compile(run_filtered, backend=backend, options={
        "guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe})
    with torch.no_grad():
        for _ in range(3):
            guarded(model, x)
            filtered(model, x)
    print("done")
