"""A set encoder looping over the batch in Python, compiled with dynamic=True: blind round 1 (issue 51)."""
import torch
import torch.nn as nn


class SetEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(12, 12)

    def forward(self, x):
        outs = []
        for i in range(x.shape[0]):
            sample = x[i]
            outs.append((sample - sample.mean()) / (sample.std() + 1e-5))
        return self.proj(torch.stack(outs))


def main():
    torch.manual_seed(0)
    enc = torch.compile(SetEncoder(), backend="aot_eager", dynamic=True)
    for batch_size in [4, 6, 5, 7, 3]:
        y = enc(torch.randn(batch_size, 5, 12))
        print(batch_size, round(y.sum().item(), 4))


if __name__ == "__main__":
    main()
