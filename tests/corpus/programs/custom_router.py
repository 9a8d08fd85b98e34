# A small top-k token router with data-dependent logic and bookkeeping inside forward.
import torch
import torch.nn as nn

torch.manual_seed(0)

stats = {}

@torch.compiler.disable
def record(name, value):
    stats.setdefault(name, []).append(value)

class Router(nn.Module):
    def __init__(self, dim=16, experts=4):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(experts))
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        scores = self.gate(x).softmax(-1)
        top = scores.argmax(-1)
        used = int((top == 0).sum().item())
        record("expert0_tokens", used)
        if x.sum() > 0:
            x = x * 1.5
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            out = out + expert(x) * (top == e).unsqueeze(-1)
        return out

model = Router()
compiled = torch.compile(model, backend="aot_eager")
for step in range(6):
    x = torch.randn(8, 16)
    y = compiled(x)
    print(f"step {step}: out {y.sum().item():.4f} calls {model.calls}")
print("stats:", stats)
