"""Train a hand-written LoRA adapter on a tiny Llama; every few steps compare against the base
model by switching the adapters off, and ramp the LoRA scale up over the first steps."""
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8):
        super().__init__()
        self.base, self.r, self.alpha = base, r, alpha
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = alpha / r
        self.enabled = True

    def forward(self, x):
        out = self.base(x)
        if self.enabled:
            out = out + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling
        return out


def set_lora(model, enabled=None, scaling=None):
    for m in model.modules():
        if isinstance(m, LoRALinear):
            m.enabled = m.enabled if enabled is None else enabled
            m.scaling = m.scaling if scaling is None else scaling


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(config)
    model.requires_grad_(False)
    for layer in model.model.layers:
        layer.self_attn.q_proj = LoRALinear(layer.self_attn.q_proj)
        layer.self_attn.v_proj = LoRALinear(layer.self_attn.v_proj)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=2.0)
    g = torch.Generator().manual_seed(0)
    for step in range(8):
        set_lora(model, scaling=2.0 * min(1.0, (step + 1) / 4))   # warm the adapter scale up
        batch = torch.randint(0, 128, (2, 16), generator=g)
        loss = compiled(input_ids=batch, labels=batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 3 == 2:
            with torch.no_grad():
                set_lora(model, enabled=False)
                base_loss = compiled(input_ids=batch, labels=batch).loss
                set_lora(model, enabled=True)
            print(f"step {step}: lora loss {loss.item():.6f} base loss {base_loss.item():.6f}")


if __name__ == "__main__":
    main()
