"""A whole train step compiled: zero_grad, forward, backward, AdamW and StepLR: blind round 1 (issue 51)."""
import torch
import torch.nn as nn


class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(0)
    model = TinyMLP()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
    loss_fn = nn.CrossEntropyLoss()

    @torch.compile(backend="aot_eager")
    def train_step(x, y):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss

    for step in range(6):
        x = torch.randn(8, 16)
        y = torch.randint(0, 4, (8,))
        loss = train_step(x, y)
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")


if __name__ == "__main__":
    main()
