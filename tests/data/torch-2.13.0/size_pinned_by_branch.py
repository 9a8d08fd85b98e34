import torch

@torch.compile(backend="aot_eager", dynamic=True)
def score(rows):
    if rows.shape[0] == 3:
        return rows.sum(0) * 2
    return rows.mean(0)

for n in (3, 3, 5, 6, 7):
    print(n, score(torch.ones(n, 4)).sum().item())
