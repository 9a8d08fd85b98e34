"""albert_cls_step_logging.py with its findings' fixes applied (the round's expert fix): "Return the loss and make the
backward call (`loss.backward()` at albert_cls_step_logging.py:46) after the compiled call", the print "outside the
compiled function: return the value and log it after the call; a number passed in only to be logged need not be
passed in at all" (lr no longer passed in), and the shorter last batch dropped (DataLoader(..., drop_last=True))."""
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

    loader = DataLoader(data, batch_size=8, shuffle=True, collate_fn=collate, drop_last=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    EPOCHS = 2
    sched = get_linear_schedule_with_warmup(opt, 2, EPOCHS * len(loader))

    @torch.compile(backend="aot_eager")
    def train_step(batch):
        return model(**batch).loss

    model.train()
    for epoch in range(EPOCHS):
        tot = 0.0
        for batch in loader:
            lr = sched.get_last_lr()[0]
            loss = train_step(batch)
            loss.backward()
            loss = loss.detach()
            print(f"  step loss {loss.item():.4f} lr {lr:.2e}")
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            tot += loss.item()
        print(f"epoch {epoch} mean loss {tot/len(loader):.4f}")


if __name__ == "__main__":
    main()
