"""electra_freeze_metrics with its finding's fix: config.problem_type "set it before the first call" (the round's
expert fix; the freeze and inference_mode recompiles are one-offs, left as they are)."""
import torch
from transformers import ElectraConfig, ElectraForSequenceClassification


def make(n):
    ids = torch.randint(0, 200, (n, 32)); return ids, (ids[:, 0] % 3)


def main():
    torch.manual_seed(0)
    cfg = ElectraConfig(vocab_size=200, embedding_size=32, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128, num_labels=3, max_position_embeddings=64)
    model = ElectraForSequenceClassification(cfg)
    model.config.problem_type = "single_label_classification"
    model.compile(backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    train = [make(16) for _ in range(6)]
    val = [make(16) for _ in range(2)]

    running = {"correct": 0, "seen": 0}

    def train_step(ids, labels):
        out = model(input_ids=ids, labels=labels)
        out.loss.backward()
        opt.step(); opt.zero_grad()
        running["correct"] += int((out.logits.argmax(-1) == labels).sum())
        running["seen"] += labels.numel()
        return out.loss.item()

    for epoch in range(3):
        if epoch == 1:
            for p in model.electra.embeddings.parameters():
                p.requires_grad = False
            for p in model.electra.encoder.layer[0].parameters():
                p.requires_grad = False
        model.train()
        losses = [train_step(ids, y) for ids, y in train]
        model.eval()
        with torch.inference_mode():
            acc = sum(float((model(input_ids=ids).logits.argmax(-1) == y).float().mean()) for ids, y in val) / len(val)
        print(f"epoch {epoch} loss {sum(losses)/len(losses):.4f} train_acc {running['correct']/running['seen']:.3f} "
              f"val_acc {acc:.3f}")


if __name__ == "__main__":
    main()
