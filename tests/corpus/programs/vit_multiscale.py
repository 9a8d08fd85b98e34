"""ViT classifier trained multi-scale (a new side each step, interpolate_pos_encoding): blind round 2 (issue 51)."""
import torch
from transformers import ViTConfig, ViTForImageClassification


def main():
    torch.manual_seed(0)
    cfg = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
                    num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                    num_labels=5, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = ViTForImageClassification(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model = torch.compile(model, backend="aot_eager")
    sizes = [32, 48, 64, 40, 32, 56]
    for step, side in enumerate(sizes):
        g = torch.Generator().manual_seed(step)
        pixels = torch.randn(2, 3, side, side, generator=g)
        labels = torch.randint(0, 5, (2,), generator=g)
        out = model(pixel_values=pixels, labels=labels, interpolate_pos_encoding=True)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} size {side} loss {out.loss.item():.4f}")


if __name__ == "__main__":
    main()
