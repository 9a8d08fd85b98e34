"""A residual MLP run to a random depth each step (range(depth)), recompile_limit lowered to 4: blind round 2
(issue 51)."""
import random

import torch
import torch._dynamo
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return x + torch.relu(self.fc(self.norm(x)))


class DepthNet(nn.Module):
    def __init__(self, d=16, n=8):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 1)

    def forward(self, x, depth):
        for i in range(depth):
            x = self.blocks[i](x)
        return self.head(x).squeeze(-1)


def main():
    torch._dynamo.config.recompile_limit = 4   # "fail fast" on recompiles, we thought
    torch.manual_seed(0)
    rng = random.Random(0)
    net = DepthNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    cnet = torch.compile(net, backend="aot_eager")
    x = torch.randn(32, 16)
    y = x.sum(-1)
    for step in range(12):
        depth = rng.randint(2, 8)
        loss = ((cnet(x, depth) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} depth {depth} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
