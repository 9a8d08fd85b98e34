"""DINO/SwAV-style multi-crop: a list of 2 global and a varying number of local crops, each of its own size."""
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, 16)

    def forward(self, crops):
        return [self.head(self.conv(crop).flatten(1)) for crop in crops]


def main():
    torch.manual_seed(0)
    model = torch.compile(Backbone(), backend="aot_eager")
    for step, n_local in enumerate([4, 4, 2, 6]):
        crops = [torch.randn(2, 3, 32, 32) for _ in range(2)] + [torch.randn(2, 3, 16, 16) for _ in range(n_local)]
        outputs = model(crops)
        print(step, len(outputs))


if __name__ == "__main__":
    main()
