"""droppath_blocks.py with its recompile-limit finding's fix applied: "a mask from `torch.rand(...) < p`" in place
of bernoulli_(keep), which takes a Python float (the keep rate stays symbolic)."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def drop_path(x, drop_prob: float, training: bool):
    if drop_prob == 0.0 or not training:
        return x
    keep = 1.0 - drop_prob
    mask = (torch.rand(x.shape[0], 1, 1, dtype=x.dtype) < keep).to(x.dtype)
    return x * mask / keep


class Block(nn.Module):
    def __init__(self, dim, drop_prob):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.drop_prob = drop_prob

    def forward(self, x):
        return x + drop_path(self.mlp(self.norm(x)), self.drop_prob, self.training)


class Net(nn.Module):
    def __init__(self, dim=32, depth=10, max_drop=0.2):
        super().__init__()
        rates = [max_drop * i / (depth - 1) for i in range(depth)]
        self.blocks = nn.ModuleList(Block(dim, r) for r in rates)
        self.head = nn.Linear(dim, 4)

    def forward(self, x):
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        return self.head(x.mean(dim=1))


def main():
    torch.manual_seed(0)
    net = Net()
    for i, blk in enumerate(net.blocks):
        net.blocks[i] = torch.compile(blk, backend="aot_eager")
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    for step in range(3):
        x = torch.randn(8, 16, 32)
        y = torch.randint(0, 4, (8,))
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
