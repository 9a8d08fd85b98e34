"""A quantization-aware embedding model: a straight-through-estimator autograd Function,
dict batches with an optional per-sample weight, and a forward hook that captures features
for a probe during warm-up, then is removed."""
import torch
import torch.nn as nn


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        return torch.round(x * scale) / scale

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class QuantEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.proj = nn.Linear(16, dim)
        self.mix = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, dim))
        self.head = nn.Linear(dim, 1)

    def forward(self, batch):
        h = RoundSTE.apply(self.proj(batch["x"]), 8.0)
        h = self.mix(h)
        err = (self.head(h).squeeze(-1) - batch["y"]) ** 2
        if batch.get("weight") is not None:
            err = err * batch["weight"]
        return err.mean()


def main():
    torch.manual_seed(0)
    model = QuantEncoder()
    captured = []
    handle = model.mix.register_forward_hook(lambda mod, inp, out: captured.append(out.detach()))
    model = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)

    for step in range(8):
        batch = {"x": torch.randn(24, 16), "y": torch.randn(24)}
        if step % 2 == 1:
            batch["weight"] = torch.rand(24)
        loss = model(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 2:
            handle.remove()
            print(f"probe warm-up done: {len(captured)} feature batches captured")
    with torch.no_grad():
        val = model({"x": torch.randn(24, 16), "y": torch.randn(24)})
    print(f"features captured in all: {len(captured)} (expected 3); val loss {val.item():.4f}")


if __name__ == "__main__":
    main()
