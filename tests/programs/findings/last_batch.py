"""A small model trained three epochs over a DataLoader whose last batch is shorter (10 rows in batches of 4: 4, 4, 2).
``drop_last``: the DataLoader drops that batch (the finding's fix). ``varying``: one pass over batches whose size
changes for another reason (the sizes a length-bucketing sampler might give), not a pass's remainder. ``eval``: the
same passes under no_grad, as an evaluation runs them (dropping a batch would drop its results)."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

mode = sys.argv[1] if len(sys.argv) > 1 else "uneven"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
compiled = torch.compile(model, backend="aot_eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
features, targets = torch.randn(10, 8), torch.randn(10, 1)
if mode == "varying":
    epochs, loader = 1, [(features[:size], targets[:size]) for size in (4, 4, 2, 6, 3, 5, 4)]
else:
    epochs, loader = 3, DataLoader(TensorDataset(features, targets), batch_size=4, drop_last=mode == "drop_last")
for epoch in range(epochs):
    for x, y in loader:
        if mode == "eval":
            with torch.no_grad():
                loss = nn.functional.mse_loss(compiled(x), y)  # the evaluation's call
            continue
        loss = nn.functional.mse_loss(compiled(x), y)  # the call
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
