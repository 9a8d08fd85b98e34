"""warmup_int_step.py with its recompile finding's fix applied: "To skip the first, static version:
torch.compile(..., dynamic=True)"."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    @torch.compile(backend="aot_eager", dynamic=True)
    def train_step(x, y, step):
        warmup = min(1.0, (step + 1) / 4)
        loss = nn.functional.mse_loss(model(x), y) * warmup
        loss.backward()
        return loss

    for step in range(6):
        loss = train_step(torch.randn(8, 16), torch.randn(8, 1), step)
        optimizer.step()
        optimizer.zero_grad()
    print(loss.item())


if __name__ == "__main__":
    main()
