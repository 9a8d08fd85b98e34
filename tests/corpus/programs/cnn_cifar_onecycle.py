"""A small plain-PyTorch CNN (Conv/BatchNorm/ReLU/Dropout) compiled as a module and trained on CIFAR-shaped random data
with SGD, OneCycleLR and label smoothing, evaluated each epoch under model.eval() and torch.no_grad(): the clean
program of blind round 8 (one expected grad-mode recompile)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32, 10))

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(0)
    X = torch.randn(256, 3, 32, 32); Y = torch.randint(0, 10, (256,))
    Xv = torch.randn(64, 3, 32, 32); Yv = torch.randint(0, 10, (64,))
    train_dl = DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True, drop_last=True)
    val_dl = DataLoader(TensorDataset(Xv, Yv), batch_size=32)

    EPOCHS = 3
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=EPOCHS * len(train_dl))
    cmodel = torch.compile(model, backend="aot_eager")

    for epoch in range(EPOCHS):
        model.train()
        tl = 0.0
        for x, y in train_dl:
            loss = F.cross_entropy(cmodel(x), y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step(); sched.step()
            tl += loss.detach()
        model.eval()
        correct = torch.zeros((), dtype=torch.long)
        with torch.no_grad():
            for x, y in val_dl:
                correct += (cmodel(x).argmax(1) == y).sum()
        print(f"epoch {epoch} loss {(tl / len(train_dl)).item():.4f} "
              f"val acc {correct.item() / len(Xv):.3f} lr {sched.get_last_lr()[0]:.4f}")


if __name__ == "__main__":
    main()
