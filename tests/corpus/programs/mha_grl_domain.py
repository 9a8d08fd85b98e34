"""A domain-adversarial text classifier: nn.MultiheadAttention with key_padding_mask, a masked mean, and a custom
autograd.Function gradient-reversal layer whose DANN alpha (a Python float) changes every step; 8 training steps,
then net.eval() under no_grad (blind round 10)."""
import math

import torch
import torch.nn as nn


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -ctx.alpha * g, None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(300, 32, padding_idx=0)
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)
        self.cls = nn.Linear(32, 2)
        self.dom = nn.Linear(32, 2)

    def forward(self, tokens, alpha):
        pad = tokens == 0
        h = self.emb(tokens)
        h, _ = self.attn(h, h, h, key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.cls(h), self.dom(GradReverse.apply(h, alpha))


def batch(bs=8, seq=20):
    t = torch.randint(1, 300, (bs, seq))
    for i in range(bs):
        t[i, seq - i:] = 0 if i else t[i, seq - i:]
    return t, torch.randint(0, 2, (bs,)), torch.randint(0, 2, (bs,))


def main():
    torch.manual_seed(0)
    net = Net()
    model = torch.compile(net, backend="aot_eager")
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    TOTAL = 8
    for step in range(TOTAL):
        p = step / TOTAL
        alpha = 2.0 / (1.0 + math.exp(-10 * p)) - 1.0   # DANN schedule
        tokens, y, d = batch()
        logits, dlogits = model(tokens, alpha)
        loss = nn.functional.cross_entropy(logits, y) + nn.functional.cross_entropy(dlogits, d)
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"step {step} alpha {alpha:.3f} loss {loss.item():.4f}")

    net.eval()
    with torch.no_grad():
        tokens, y, _ = batch(bs=8)
        acc = (model(tokens, 1.0)[0].argmax(-1) == y).float().mean()
    print("eval acc", acc.item())


if __name__ == "__main__":
    main()
