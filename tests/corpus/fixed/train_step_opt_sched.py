"""train_step_opt_sched.py with its graph-break finding's fix applied: "Compile the forward and the loss only, return
the loss, and make all of these calls outside it": zero_grad() before the call, the others after it, in order."""
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
        loss = loss_fn(model(x), y)
        return loss

    for step in range(6):
        x = torch.randn(8, 16)
        y = torch.randint(0, 4, (8,))
        optimizer.zero_grad()
        loss = train_step(x, y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")


if __name__ == "__main__":
    main()
