"""A forward hook registered on a submodule after the first compiled call: the compiled code never runs it."""

import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.proj(x))


stats = {}


def record_max(module, args, output):
    stats["max"] = round(float(output.max()), 3)


model = Net()
compiled = torch.compile(model, backend="aot_eager")
x = torch.randn(4, 8)
compiled(x)
model.proj.register_forward_hook(record_max)
compiled(x)
print("stats", stats)
