"""A greedy decoding loop compiled with dynamic=False: the prompt grows one token a call, so every call recompiles
until the recompile limit (set to 4 here) and the rest run eager. --check-fixes leaves dynamic=False out."""

import torch

torch.manual_seed(0)
torch._dynamo.config.recompile_limit = 4


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)
        self.out = torch.nn.Linear(16, 50)

    def forward(self, ids):
        return self.out(self.emb(ids).mean(dim=1))


model = Tiny()
step = torch.compile(model, backend="aot_eager", dynamic=False)
ids = torch.tensor([[1, 2, 3]])
with torch.no_grad():
    for _ in range(7):
        logits = step(ids)
        ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
print("ids", ids.tolist())
