"""Pack non-padding tokens (nonzero, .tolist(), .item()) in a compiled helper: blind round 1 (issue 51)."""
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
        keep = torch.nonzero(mask.flatten()).squeeze(1)
        tokens = input_ids.flatten()[keep]
        vecs = emb(tokens)
        pieces = torch.split(vecs, lengths.tolist())
        means = torch.stack([p.mean(0) for p in pieces])
        n_tokens = int(lengths.sum().item())
        return means, n_tokens

    for trial in range(3):
        ids = torch.randint(1, 50, (3, 6))
        ids[0, 4:] = PAD
        ids[1, 2 + trial:] = PAD
        means, n = packed_mean(ids)
        print(trial, n, means.sum().item())


if __name__ == "__main__":
    main()
