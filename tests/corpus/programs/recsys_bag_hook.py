"""A recommender: nn.EmbeddingBag(mode="mean") over variable-length user histories with offsets, an MLP and a dot
with item embeddings, compiled as a module; at epoch 1 a forward hook is registered on the bag, after the first
compile, to record o.norm().item(); a compiled coverage metric with target[scores > 0] and torch.unique (blind
round 10)."""
import torch
import torch.nn as nn

N_ITEMS, D = 1000, 32


class Recommender(nn.Module):
    def __init__(self):
        super().__init__()
        self.history = nn.EmbeddingBag(N_ITEMS, D, mode="mean")
        self.items = nn.Embedding(N_ITEMS, D)
        self.mlp = nn.Sequential(nn.Linear(D, D), nn.ReLU(), nn.Linear(D, D))

    def forward(self, hist, offsets, target):
        u = self.mlp(self.history(hist, offsets))
        return (u * self.items(target)).sum(-1)


def make_batch(bs):
    lengths = torch.randint(1, 6, (bs,))
    hist = torch.randint(0, N_ITEMS, (int(lengths.sum()),))
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    target = torch.randint(0, N_ITEMS, (bs,))
    label = (target % 2).float()
    return hist, offsets, target, label


@torch.compile(backend="aot_eager")
def coverage(target, scores):
    top = target[scores > 0]
    return torch.unique(top).numel() / N_ITEMS


def main():
    torch.manual_seed(0)
    model = Recommender()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
    bag_norms = []
    for epoch in range(2):
        if epoch == 1:   # start monitoring the user-embedding scale
            model.history.register_forward_hook(lambda m, i, o: bag_norms.append(o.norm().item()))
        for step in range(4):
            hist, offsets, target, label = make_batch(16)
            scores = cmodel(hist, offsets, target)
            loss = nn.functional.binary_cross_entropy_with_logits(scores, label)
            opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f} coverage {coverage(target, scores.detach()):.4f}")
    print("bag norms recorded:", len(bag_norms))


if __name__ == "__main__":
    main()
