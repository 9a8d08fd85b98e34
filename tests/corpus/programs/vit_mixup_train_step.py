"""A tiny ViT trained with mixup: mixing, forward and soft-target loss in one compiled function."""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import ViTConfig, ViTForImageClassification


@torch.compile(backend="aot_eager")
def mixup_loss(model, x, y, alpha=0.4):
    lam = float(np.random.beta(alpha, alpha))
    perm = torch.randperm(x.size(0))
    x = lam * x + (1 - lam) * x[perm]
    y1 = F.one_hot(y, 10).float()
    y = lam * y1 + (1 - lam) * y1[perm]
    logits = model(pixel_values=x).logits
    return torch.sum(-y * F.log_softmax(logits, -1), -1).mean()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    cfg = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=128, num_labels=10)
    model = ViTForImageClassification(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images = torch.randn(100, 3, 32, 32)
    labels = torch.randint(0, 10, (100,))

    model.train()
    for epoch in range(2):
        for i in range(0, 100, 16):  # last batch of each epoch has 4 images
            loss = mixup_loss(model, images[i:i + 16], labels[i:i + 16])
            loss.backward()
            opt.step()
            opt.zero_grad()
        print(f"epoch {epoch} last loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        acc = (model(pixel_values=images).logits.argmax(-1) == labels).float().mean()
    print(f"train acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
