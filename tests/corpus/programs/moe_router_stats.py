"""A toy mixture of experts counting calls in a dict attribute, its aux loss behind a tensor `if`: blind round 2
(issue 51)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MoE(nn.Module):
    def __init__(self, d=16, n_experts=4):
        super().__init__()
        self.router = nn.Linear(d, n_experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(n_experts))
        self.stats = {"calls": 0, "aux_applied": 0}

    def forward(self, x):
        self.stats["calls"] += 1
        probs = F.softmax(self.router(x), dim=-1)
        top = probs.argmax(-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            mask = (top == e).unsqueeze(-1).to(x.dtype)
            out = out + mask * expert(x)
        imbalance = probs.mean(0).max() - 1.0 / len(self.experts)
        aux = torch.zeros((), dtype=x.dtype)
        if imbalance > 0.05:                       # only penalise an unbalanced router
            aux = imbalance * 10.0
            self.stats["aux_applied"] += 1
        return out, aux


def main():
    torch.manual_seed(0)
    moe = MoE()
    head = nn.Linear(16, 1)
    opt = torch.optim.Adam(list(moe.parameters()) + list(head.parameters()), lr=0.05)
    cmoe = torch.compile(moe, backend="aot_eager")
    x = torch.randn(64, 16)
    y = torch.randn(64, 1)
    for step in range(10):
        out, aux = cmoe(x)
        loss = F.mse_loss(head(out), y) + aux
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f} aux {float(aux):.4f} stats {moe.stats}")


if __name__ == "__main__":
    main()
