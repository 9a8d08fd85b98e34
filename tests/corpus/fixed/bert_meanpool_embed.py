"""bert_meanpool_embed with its finding's fix: "or torch.compile(..., dynamic=True)" (the round's fix1):
one version serves every batch size and length."""
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel


def batch_of(bs, length):
    ids = torch.randint(1, 500, (bs, length))
    mask = torch.ones(bs, length, dtype=torch.long)
    for i in range(bs):
        mask[i, length - (i % 3):] = 0
    return ids, mask


def main():
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=128)
    encoder = BertModel(cfg).eval()

    @torch.compile(backend="aot_eager", dynamic=True)
    def embed(input_ids, attention_mask):
        hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-6)
        return F.normalize(pooled, dim=-1)

    corpus = []
    with torch.no_grad():
        for bs, length in [(8, 16), (8, 16), (8, 21), (5, 13), (8, 30), (3, 9), (8, 16)]:
            ids, mask = batch_of(bs, length)
            corpus.append(embed(ids, mask))
        corpus = torch.cat(corpus)
        q_ids, q_mask = batch_of(2, 11)
        q = embed(q_ids, q_mask)
    scores = q @ corpus.T
    print("corpus", tuple(corpus.shape), "top-3", scores.topk(3, dim=-1).indices.tolist())


if __name__ == "__main__":
    main()
