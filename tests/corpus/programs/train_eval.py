"""Alternate training and evaluation every epoch on one compiled model (dropout and batch norm change behaviour)."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        model.train()
        for _ in range(2):
            loss = nn.functional.cross_entropy(compiled(torch.randn(8, 16)), torch.randint(0, 2, (8,)))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            accuracy = (compiled(torch.randn(8, 16)).argmax(-1) == 0).float().mean()
        print(epoch, loss.item(), accuracy.item())


if __name__ == "__main__":
    main()
