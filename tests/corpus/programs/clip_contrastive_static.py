"""A tiny CLIP trained contrastively through `torch.compile(model, dynamic=False)` (to "avoid slow dynamic shapes"),
its captions padded to the longest caption of each batch (blind round 8)."""
import random

import torch
from transformers import CLIPConfig, CLIPModel, CLIPTextConfig, CLIPVisionConfig


def make_batch(bs=4):
    caps = [[0] + [random.randrange(3, 100) for _ in range(random.randint(3, 16))] + [2] for _ in range(bs)]
    L = max(map(len, caps))
    ids = torch.full((bs, L), 1); mask = torch.zeros(bs, L, dtype=torch.long)
    for i, c in enumerate(caps):
        ids[i, :len(c)] = torch.tensor(c); mask[i, :len(c)] = 1
    return {"input_ids": ids, "attention_mask": mask, "pixel_values": torch.randn(bs, 3, 32, 32)}


def main():
    torch.manual_seed(0); random.seed(0)
    text_cfg = CLIPTextConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                              num_attention_heads=2, max_position_embeddings=40, pad_token_id=1,
                              bos_token_id=0, eos_token_id=2)
    vis_cfg = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                               num_attention_heads=2, image_size=32, patch_size=8)
    cfg = CLIPConfig(text_config=text_cfg.to_dict(), vision_config=vis_cfg.to_dict(), projection_dim=16)
    model = CLIPModel(cfg)
    cmodel = torch.compile(model, backend="aot_eager", dynamic=False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    model.train()
    for step in range(24):
        batch = make_batch()
        out = cmodel(**batch, return_loss=True)
        out.loss.backward()
        opt.step(); opt.zero_grad()
        if step % 4 == 0:
            print(f"step {step} len {batch['input_ids'].shape[1]} loss {out.loss.item():.4f} "
                  f"scale {model.logit_scale.exp().item():.2f}")


if __name__ == "__main__":
    main()
