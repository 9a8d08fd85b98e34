"""LoRA fine-tuning of a tiny Qwen2 causal LM with gradient checkpointing and enable_input_require_grads(), the whole
model compiled with torch.compile; padded batches with attention masks and -100 labels on the padding (blind
round 8)."""
import math

import torch
import torch.nn as nn
from transformers import Qwen2Config, Qwen2ForCausalLM


class LoRALinear(nn.Module):
    def __init__(self, base, r=4, alpha=8):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) / math.sqrt(base.in_features))
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scaling


def batch(bs, L):
    ids = torch.randint(3, 256, (bs, L))
    lens = torch.randint(L // 2, L + 1, (bs,))
    mask = (torch.arange(L)[None] < lens[:, None]).long()
    labels = ids.masked_fill(mask == 0, -100)
    return dict(input_ids=ids * mask, attention_mask=mask, labels=labels)


def main():
    torch.manual_seed(0)
    cfg = Qwen2Config(vocab_size=256, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      use_cache=False)
    model = Qwen2ForCausalLM(cfg)

    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.model.layers:
        layer.self_attn.q_proj = LoRALinear(layer.self_attn.q_proj)
        layer.self_attn.v_proj = LoRALinear(layer.self_attn.v_proj)

    model.gradient_checkpointing_enable()
    model.enable_input_require_grads()
    model.train()
    model = torch.compile(model, backend="aot_eager")
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-3)

    for step in range(8):
        b = batch(4, 32)
        loss = model(**b).loss
        loss.backward()
        opt.step(); opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
