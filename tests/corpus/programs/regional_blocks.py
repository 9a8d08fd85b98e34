"""Regional compilation in the user's own model: each block compiled on its own, each block holding its depth as an int."""
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width, depth_index):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.depth_index = depth_index  # a per-block int

    def forward(self, x):
        return x + self.fc(x) / (self.depth_index + 1)


class Net(nn.Module):
    def __init__(self, width=16, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, i) for i in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def main():
    net = Net()
    for block in net.blocks:
        block.compile(backend="aot_eager")
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):  # steps: 3, or as many as asked
        batch = torch.randn(8, 16)
        loss = net(batch).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
