"""Supervised fine-tuning of a small Gemma LM on prompt/response pairs, the nearly clean program: the collate pads
every batch to a fixed 32 and masks the prompt with -100, the model compiled once, backward and the optimizer eager,
a no_grad validation pass at the end of each epoch (blind round 9)."""
import random

import torch
from transformers import GemmaConfig, GemmaForCausalLM

MAXLEN = 32


def example():
    p = torch.randint(2, 128, (random.randint(4, 10),)); r = torch.randint(2, 128, (random.randint(4, 12),))
    return p, r


def collate(pairs):
    ids = torch.zeros(len(pairs), MAXLEN, dtype=torch.long); mask = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    for i, (p, r) in enumerate(pairs):
        s = torch.cat([p, r])[:MAXLEN]; ids[i, :len(s)] = s; mask[i, :len(s)] = 1
        labels[i, len(p):len(s)] = s[len(p):]
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def main():
    torch.manual_seed(0); random.seed(0)
    cfg = GemmaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=64)
    model = GemmaForCausalLM(cfg)
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    train = [collate([example() for _ in range(4)]) for _ in range(8)]
    val = [collate([example() for _ in range(4)]) for _ in range(2)]
    for epoch in range(2):
        model.train(); tot = 0.0
        for batch in train:
            loss = cmodel(**batch).loss
            loss.backward(); opt.step(); opt.zero_grad(); tot += loss.item()
        model.eval()
        with torch.no_grad():
            vl = sum(cmodel(**b).loss.item() for b in val) / len(val)
        print(f"epoch {epoch} train {tot/len(train):.4f} val {vl:.4f}")


if __name__ == "__main__":
    main()
