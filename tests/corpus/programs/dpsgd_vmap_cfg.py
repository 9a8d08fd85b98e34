"""DP-SGD on a plain MLP: per-sample gradients with torch.func (vmap(grad(functional_call))) in a compiled
private_grads(), clipped and noised with a bound read from a global config dict CFG that is tightened every step
(10 steps of 32) (blind round 10)."""
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

CFG = {"max_grad_norm": 1.0, "noise": 0.5}


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_one(p, x, y):
        out = functional_call(model, p, (x.unsqueeze(0),))
        return nn.functional.cross_entropy(out, y.unsqueeze(0))

    @torch.compile(backend="aot_eager")
    def private_grads(p, x, y):
        g = vmap(grad(loss_one), in_dims=(None, 0, 0))(p, x, y)
        norms = torch.stack([v.flatten(1).norm(dim=1) for v in g.values()]).norm(dim=0)
        scale = (CFG["max_grad_norm"] / (norms + 1e-6)).clamp(max=1.0)
        out = {}
        for k, v in g.items():
            clipped = (v * scale.view(-1, *[1] * (v.dim() - 1))).sum(0)
            out[k] = (clipped + CFG["noise"] * CFG["max_grad_norm"] * torch.randn_like(clipped)) / x.shape[0]
        return out

    X, Y = torch.randn(256, 10), torch.randint(0, 2, (256,))
    for step in range(10):
        idx = torch.randint(0, 256, (32,))
        g = private_grads(params, X[idx], Y[idx])
        params = {k: params[k] - 0.1 * g[k] for k in params}
        CFG["max_grad_norm"] = round(CFG["max_grad_norm"] * 0.9, 4)   # tighten the clip bound
        with torch.no_grad():
            acc = (functional_call(model, params, (X,)).argmax(-1) == Y).float().mean()
        print(f"step {step} clip {CFG['max_grad_norm']} acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
