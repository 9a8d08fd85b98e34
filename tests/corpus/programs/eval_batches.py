"""Batch inference with a small CNN: a DataLoader whose last batch is short, then a
request loop with whatever batch sizes arrive."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main():
    torch.manual_seed(0)
    model = SmallCNN().eval()
    model = torch.compile(model, backend="aot_eager")

    images = torch.randn(100, 1, 28, 28)
    loader = DataLoader(TensorDataset(images), batch_size=32)
    preds = []
    with torch.inference_mode():
        for (batch,) in loader:
            preds.append(model(batch))
    preds = torch.cat(preds)
    print(f"dataset: {preds.shape[0]} rows, logit mean {preds.mean().item():.5f}")

    for n in (1, 3, 32, 7, 1):
        with torch.inference_mode():
            logits = model(torch.randn(n, 1, 28, 28))
        print(f"request of {n}: logit sum {logits.sum().item():.4f}")


if __name__ == "__main__":
    main()
