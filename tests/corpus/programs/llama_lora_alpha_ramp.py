"""A tiny Llama fine-tuned with hand-rolled LoRA adapters whose scale (a float attribute) is ramped over the first steps."""
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM


class LoRALinear(nn.Module):
    def __init__(self, base, r=4, alpha=8.0):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.r, self.alpha = r, alpha
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale


def main():
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
    model = LlamaForCausalLM(cfg)
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.model.layers:
        layer.self_attn.q_proj = LoRALinear(layer.self_attn.q_proj)
        layer.self_attn.v_proj = LoRALinear(layer.self_attn.v_proj)

    lora_modules = [m for m in model.modules() if isinstance(m, LoRALinear)]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    cmodel = torch.compile(model, backend="aot_eager")

    warmup = 12
    for step in range(20):
        ramp = min(1.0, (step + 1) / warmup)  # alpha warmup: scale grows to alpha/r
        for m in lora_modules:
            m.scale = ramp * m.alpha / m.r
        ids = torch.randint(0, 256, (4, 32))
        out = cmodel(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 5 == 0 or step == 19:
            print(f"step {step:2d} scale {lora_modules[0].scale:.3f} loss {out.loss.item():.4f}")
        if step in (9, 19):  # quick validation on longer held-out text
            cmodel.eval()
            with torch.no_grad():
                vids = torch.randint(0, 256, (2, 48))
                vloss = cmodel(input_ids=vids, labels=vids).loss
            cmodel.train()
            print(f"  val loss after step {step}: {vloss.item():.4f}")


if __name__ == "__main__":
    main()
