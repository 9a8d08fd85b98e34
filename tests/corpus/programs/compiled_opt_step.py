"""A compiled optimizer step (torch.compile(opt.step)) with a learning-rate schedule that changes lr every step."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (step + 1))

    @torch.compile(backend="aot_eager")
    def opt_step():
        optimizer.step()

    for step in range(4):
        x, y = torch.randn(8, 16), torch.randn(8, 1)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt_step()
        optimizer.zero_grad()
        scheduler.step()
    print(loss.item())


if __name__ == "__main__":
    main()
