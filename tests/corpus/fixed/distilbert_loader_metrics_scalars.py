"""distilbert_loader_metrics.py with its graph-break finding's fix applied: "Enable tracing of data-dependent output
operators with `torch._dynamo.config.capture_scalar_outputs = True`"."""
import numpy as np
import torch
import torch._dynamo
from torch.utils.data import DataLoader, TensorDataset
from transformers import DistilBertConfig, DistilBertForSequenceClassification


@torch.compile(backend="aot_eager")
def f1_score(logits, y):
    pred = logits.argmax(-1)
    p = pred.cpu().numpy()
    t = y.cpu().numpy()
    tp = float(np.sum((p == 1) & (t == 1)))
    fp = float(np.sum((p == 1) & (t == 0)))
    fn = float(np.sum((p == 0) & (t == 1)))
    return 2 * tp / max(2 * tp + fp + fn, 1.0)


def main():
    torch._dynamo.config.capture_scalar_outputs = True
    torch.manual_seed(0)
    cfg = DistilBertConfig(vocab_size=150, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                           max_position_embeddings=64, num_labels=2, dropout=0.0, attention_dropout=0.0)
    model = DistilBertForSequenceClassification(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    cmodel = torch.compile(model, backend="aot_eager")
    ids = torch.randint(1, 150, (22, 12))
    labels = (ids[:, 0] > 75).long()
    loader = DataLoader(TensorDataset(ids, labels), batch_size=8, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            out = cmodel(input_ids=x, labels=y)
            out.loss.backward()
            opt.step()
            opt.zero_grad()
            print(f"epoch {epoch} batch {i} n={len(y)} loss {out.loss.item():.4f} "
                  f"f1 {f1_score(out.logits.detach(), y):.3f}")


if __name__ == "__main__":
    main()
