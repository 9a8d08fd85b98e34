"""A small MLP compiled with the default (Inductor) backend, an uneven last batch: the C++ codegen path on CPU."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    compiled = torch.compile(model)
    data = torch.randn(10, 16)
    with torch.no_grad():
        for start in range(0, len(data), 4):
            out = compiled(data[start:start + 4])
    print(out.shape)


if __name__ == "__main__":
    main()
