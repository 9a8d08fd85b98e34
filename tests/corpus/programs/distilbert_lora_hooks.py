# LoRA adapters on a tiny DistilBERT: adapters switched off and on, scale changed, a hook added late.
import torch
import torch.nn as nn
from transformers import DistilBertConfig, DistilBertModel

torch.manual_seed(0)

class LoRALinear(nn.Module):
    def __init__(self, base, r=4, alpha=8.0):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.1)
        self.B = nn.Parameter(torch.randn(base.out_features, r) * 0.1)
        self.scale = alpha / r
        self.enabled = True

    def forward(self, x):
        y = self.base(x)
        if self.enabled:
            y = y + (x @ self.A.t() @ self.B.t()) * self.scale
        return y

config = DistilBertConfig(dim=32, n_layers=2, n_heads=2, hidden_dim=64, vocab_size=100)
model = DistilBertModel(config).eval()
for block in model.transformer.layer:
    block.attention.q_lin = LoRALinear(block.attention.q_lin)
    block.attention.v_lin = LoRALinear(block.attention.v_lin)
compiled = torch.compile(model, backend="aot_eager")

def set_lora(enabled=None, scale=None):
    for m in model.modules():
        if isinstance(m, LoRALinear):
            if enabled is not None:
                m.enabled = enabled
            if scale is not None:
                m.scale = scale

seen = []

def score(out):
    return round(out.last_hidden_state[0, 1, :4].sum().item(), 5)

ids = torch.randint(0, 100, (2, 10))
with torch.no_grad():
    print("lora on ", score(compiled(input_ids=ids)))
    set_lora(enabled=False)
    print("lora off", score(compiled(input_ids=ids)))
    set_lora(enabled=True)
    for s in [1.0, 0.5, 0.25]:
        set_lora(scale=s)
        print("scale", s, score(compiled(input_ids=ids)))
    model.transformer.layer[0].register_forward_hook(lambda mod, inp, out: seen.append(out[0].shape))
    print("hooked", score(compiled(input_ids=ids)))
print("hook calls:", len(seen))
