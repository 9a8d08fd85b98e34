"""A tiny ALBERT classifier fine-tuned through a compiled train step that runs the model, calls backward and prints
the loss and the scheduler's lr (passed in as a Python float, warming up from 0.0); a custom collate pads each batch
to its longest row, and 44 rows in batches of 8 leave a last batch of 4 (blind round 8)."""
import random

import torch
from torch.utils.data import DataLoader
from transformers import AlbertConfig, AlbertForSequenceClassification, get_linear_schedule_with_warmup


def collate(rows):
    L = max(len(r["input_ids"]) for r in rows)
    ids = torch.zeros(len(rows), L, dtype=torch.long)
    tt = torch.zeros_like(ids); am = torch.zeros_like(ids)
    for i, r in enumerate(rows):
        n = len(r["input_ids"])
        ids[i, :n] = torch.tensor(r["input_ids"]); tt[i, :n] = torch.tensor(r["token_type_ids"]); am[i, :n] = 1
    return {"input_ids": ids, "token_type_ids": tt, "attention_mask": am,
            "labels": torch.tensor([r["label"] for r in rows])}


def main():
    torch.manual_seed(0); random.seed(0)
    cfg = AlbertConfig(vocab_size=200, embedding_size=16, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                       num_labels=3)
    model = AlbertForSequenceClassification(cfg)
    model.config.problem_type = "single_label_classification"

    data = []
    for _ in range(44):
        n = random.choice([12, 16, 20])
        data.append({"input_ids": [random.randrange(5, 200) for _ in range(n)],
                     "token_type_ids": [0] * (n // 2) + [1] * (n - n // 2),
                     "label": random.randrange(3)})

    loader = DataLoader(data, batch_size=8, shuffle=True, collate_fn=collate)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    EPOCHS = 2
    sched = get_linear_schedule_with_warmup(opt, 2, EPOCHS * len(loader))

    @torch.compile(backend="aot_eager")
    def train_step(batch, lr):
        out = model(**batch)
        loss = out.loss
        loss.backward()
        print(f"  step loss {loss.item():.4f} lr {lr:.2e}")
        return loss.detach()

    model.train()
    for epoch in range(EPOCHS):
        tot = 0.0
        for batch in loader:
            loss = train_step(batch, sched.get_last_lr()[0])
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            tot += loss.item()
        print(f"epoch {epoch} mean loss {tot/len(loader):.4f}")


if __name__ == "__main__":
    main()
