"""A model trained through what torch.compile returned, then asked to generate through the same object: the
wrapper hands `generate` to the original model, whose own calls of the model run uncompiled."""
import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.head = nn.Embedding(16, 8), nn.Linear(8, 16)

    def forward(self, ids):
        return self.head(self.emb(ids))

    @torch.no_grad()
    def generate(self, ids, steps):
        for _ in range(steps):
            ids = torch.cat([ids, self(ids)[:, -1:].argmax(-1)], dim=1)
        return ids


def main():
    torch.manual_seed(0)
    model = TinyLM()
    compiled = torch.compile(model, backend="aot_eager")
    print(f"{compiled(torch.randint(0, 16, (2, 4))).sum().item():.4f}")
    print(compiled.generate(torch.randint(0, 16, (1, 3)), 4).tolist())


if __name__ == "__main__":
    main()
