"""inductor_mlp_uneven.py with its finding's fix applied: "drop it" (the shorter last batch; the program slices its
batches itself, so it stops at the last full one, as DataLoader(..., drop_last=True) would)."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    compiled = torch.compile(model)
    data = torch.randn(10, 16)
    with torch.no_grad():
        for start in range(0, len(data) - len(data) % 4, 4):
            out = compiled(data[start:start + 4])
    print(out.shape)


if __name__ == "__main__":
    main()
