"""A tiny RoBERTa classifier whose compiled training step trims the padding columns to the longest row."""
import torch
from transformers import RobertaConfig, RobertaForSequenceClassification


def main():
    torch.manual_seed(0)
    cfg = RobertaConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=80, num_labels=2, pad_token_id=1)
    model = RobertaForSequenceClassification(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    n, maxlen = 72, 64
    lengths = torch.randint(8, maxlen + 1, (n,))
    ids = torch.randint(3, 500, (n, maxlen))
    mask = (torch.arange(maxlen)[None, :] < lengths[:, None]).long()
    ids = ids.masked_fill(mask == 0, cfg.pad_token_id)
    y = torch.randint(0, 2, (n,))

    @torch.compile(backend="aot_eager")
    def train_step(batch):
        L = int(batch["attention_mask"].sum(dim=1).max())  # longest real row in the batch
        batch = {k: (v[:, :L] if v.dim() == 2 else v) for k, v in batch.items()}
        out = model(**batch)
        out.loss.backward()
        return out.loss.detach()

    model.train()
    for epoch in range(2):
        tot = 0.0
        for i in range(0, n, 12):
            batch = {"input_ids": ids[i:i + 12], "attention_mask": mask[i:i + 12], "labels": y[i:i + 12]}
            loss = train_step(batch)
            opt.step()
            opt.zero_grad()
            tot += loss.item()
        print(f"epoch {epoch} mean loss {tot / (n // 12):.4f}")


if __name__ == "__main__":
    main()
