"""A tiny transformer trained three steps with a print of the loss inside the compiled step, and a sequence
length that changes every step (16, 24, 32)."""
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(0)


class Tiny(torch.nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        h = h + F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(h)


model = Tiny()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(backend=sys.argv[1] if len(sys.argv) > 1 else "aot_eager")
def train_step(tokens: torch.Tensor) -> torch.Tensor:
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print("loss", loss.item())
    return loss


for length in (16, 24, 32):
    train_step(torch.randint(0, 64, (4, length)))
