"""Contrastive fine-tuning of a tiny CLIP, the compiled loss's label smoothing and text weight on cosine and linear
schedules (label_smoothing=smoothing, a new Python float every step): blind round 3 (issue 51)."""
import math

import torch
import torch.nn.functional as F
from transformers import CLIPConfig, CLIPModel

TOTAL = 12


@torch.compile(backend="aot_eager")
def contrastive_loss(logits_per_image, smoothing, txt_weight):
    target = torch.arange(logits_per_image.shape[0])
    li = F.cross_entropy(logits_per_image, target, label_smoothing=smoothing)
    lt = F.cross_entropy(logits_per_image.t(), target, label_smoothing=smoothing)
    return (li + txt_weight * lt) / (1.0 + txt_weight)


def main():
    torch.manual_seed(0)
    cfg = CLIPConfig(
        text_config=dict(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, max_position_embeddings=16),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                           image_size=32, patch_size=16, num_channels=3),
        projection_dim=16)
    model = CLIPModel(cfg)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    cmodel = torch.compile(model, backend="aot_eager")
    ids = torch.randint(0, 100, (4, 8))
    pix = torch.randn(4, 3, 32, 32)
    for step in range(TOTAL):
        smoothing = round(0.1 * 0.5 * (1 + math.cos(math.pi * step / TOTAL)), 4)
        txt_weight = 0.5 + 0.5 * step / TOTAL
        out = cmodel(input_ids=ids, pixel_values=pix)
        loss = contrastive_loss(out.logits_per_image, smoothing, txt_weight)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} smoothing {smoothing:.4f} w {txt_weight:.3f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
