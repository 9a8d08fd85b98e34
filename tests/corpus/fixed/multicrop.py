"""multicrop.py with its finding's fix applied: "stack them into one tensor before the call": the global crops are
stacked into one tensor and the local crops into another (the two sizes cannot share one), so the forward takes two
tensors, not a list whose length varies."""
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, 16)

    def forward(self, global_crops, local_crops):
        # (n, batch, 3, H, W) -> one batch of n * batch images per size
        outputs = []
        for crops in (global_crops, local_crops):
            n, batch = crops.shape[:2]
            outputs.append(self.head(self.conv(crops.flatten(0, 1)).flatten(1)).view(n, batch, -1))
        return outputs


def main():
    torch.manual_seed(0)
    model = torch.compile(Backbone(), backend="aot_eager")
    for step, n_local in enumerate([4, 4, 2, 6]):
        global_crops = torch.stack([torch.randn(2, 3, 32, 32) for _ in range(2)])
        local_crops = torch.stack([torch.randn(2, 3, 16, 16) for _ in range(n_local)])
        outputs = model(global_crops, local_crops)
        print(step, sum(len(out) for out in outputs))


if __name__ == "__main__":
    main()
