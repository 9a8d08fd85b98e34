"""electra_compiled_collate.py with its pad_collate finding's fix applied: "leave it uncompiled" (the DataLoader's
collate function runs plainly; only the model is compiled)."""
import torch
from torch.utils.data import DataLoader
from transformers import ElectraConfig, ElectraForSequenceClassification

PAD = 0


def pad_collate(features):
    max_len = max(f["input_ids"].shape[0] for f in features)
    input_ids = torch.full((len(features), max_len), PAD, dtype=torch.long)
    attention_mask = torch.zeros((len(features), max_len), dtype=torch.long)
    for i, f in enumerate(features):
        n = f["input_ids"].shape[0]
        input_ids[i, :n] = f["input_ids"]
        attention_mask[i, :n] = 1
    labels = torch.tensor([f["label"] for f in features])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def make_dataset(n=20):
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(4, 14, (n,), generator=g).tolist()
    return [{"input_ids": torch.randint(1, 150, (l,), generator=g), "label": int(l > 8)} for l in lengths]


def main():
    torch.manual_seed(0)
    config = ElectraConfig(vocab_size=150, embedding_size=32, hidden_size=32, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                           num_labels=2, problem_type="single_label_classification")
    model = ElectraForSequenceClassification(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(make_dataset(), batch_size=4, shuffle=True, collate_fn=pad_collate,
                        generator=torch.Generator().manual_seed(1))
    for epoch in range(2):
        total = 0.0
        for batch in loader:
            out = compiled(**batch)
            out.loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            total += out.loss.item()
        print(f"epoch {epoch} mean loss {total / len(loader):.4f}")


if __name__ == "__main__":
    main()
