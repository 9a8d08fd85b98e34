"""data_dependent_pack.py with its nonzero finding's fix applied: "keep the data-dependent part in tensor ops": a
masked sum, and the token count returned as a tensor (int() after the call)."""
import torch
import torch.nn as nn

PAD = 0


def main():
    torch.manual_seed(0)
    emb = nn.Embedding(50, 8)

    @torch.compile(backend="aot_eager")
    def packed_mean(input_ids):
        mask = input_ids != PAD
        lengths = mask.sum(dim=1)
        vecs = emb(input_ids) * mask.unsqueeze(-1)
        means = vecs.sum(1) / lengths.unsqueeze(-1)
        return means, lengths.sum()

    for trial in range(3):
        ids = torch.randint(1, 50, (3, 6))
        ids[0, 4:] = PAD
        ids[1, 2 + trial:] = PAD
        means, n = packed_mean(ids)
        n = int(n)
        print(trial, n, means.sum().item())


if __name__ == "__main__":
    main()
