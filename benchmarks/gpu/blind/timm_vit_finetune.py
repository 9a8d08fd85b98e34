"""A timm ViT fine-tuned with a compiled model, AdamW and a cosine schedule; the last batch is shorter."""

import timm
import torch


def main():
    torch.manual_seed(0)
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=64).cuda()
    compiled = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    data = torch.randn(52, 3, 64, 64)
    labels = torch.randint(0, 10, (52,))
    for epoch in range(2):
        for start in range(0, 52, 16):
            x, y = data[start:start + 16].cuda(), labels[start:start + 16].cuda()
            loss = torch.nn.functional.cross_entropy(compiled(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
        print("epoch", epoch, "loss", round(loss.item(), 4))


if __name__ == "__main__":
    main()
