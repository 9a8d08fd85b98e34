"""A training step compiled whole, with a print of the loss inside a gradient-accumulation context manager of the
kind training libraries write (a generator under contextlib.contextmanager): Dynamo cannot resume inside it."""
import contextlib

import torch
from torch import nn

torch.manual_seed(0)


class Accumulator:
    """Gradient accumulation, as training libraries write it."""

    def __init__(self):
        self.steps = 0

    @contextlib.contextmanager
    def accumulate(self, model):
        self.steps += 1
        yield


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


acc = Accumulator()
model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    with acc.accumulate(model):
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        print("loss", round(loss.item(), 4))
        loss.backward()
    return loss


for step in range(4):
    train_step(torch.randn(4, 8), torch.randn(4, 1))
    opt.step()
    opt.zero_grad()
print("steps", acc.steps)
