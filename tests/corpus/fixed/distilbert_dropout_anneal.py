"""distilbert_dropout_anneal.py with its recompile-limit finding's fix applied: "raise
torch._dynamo.config.recompile_limit" (to 16: one version per distinct dropout p, 10, and the eval's)."""
import torch
import torch.nn as nn
from transformers import DistilBertConfig, DistilBertForSequenceClassification


def set_dropout(model, p):
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = p


def batches(g, n_batches, batch_size=4, seq_len=12):
    for _ in range(n_batches):
        ids = torch.randint(1, 200, (batch_size, seq_len), generator=g)
        yield {"input_ids": ids, "attention_mask": torch.ones_like(ids),
               "labels": torch.randint(0, 2, (batch_size,), generator=g)}


def main():
    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=200, dim=32, hidden_dim=64, n_layers=1, n_heads=2,
                              max_position_embeddings=32, dropout=0.3, seq_classif_dropout=0.3,
                              problem_type="single_label_classification")
    model = DistilBertForSequenceClassification(config)
    torch._dynamo.config.recompile_limit = 16
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    g = torch.Generator().manual_seed(0)
    epochs = 10
    for epoch in range(epochs):
        p = round(0.3 * (1 - epoch / (epochs - 1)), 3)
        set_dropout(model, p)
        model.train()
        for batch in batches(g, 2):
            loss = compiled(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(f"epoch {epoch} dropout={p} loss={loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        acc = [(compiled(**b).logits.argmax(-1) == b["labels"]).float().mean().item() for b in batches(g, 3)]
    print("eval acc", [round(a, 3) for a in acc])


if __name__ == "__main__":
    main()
