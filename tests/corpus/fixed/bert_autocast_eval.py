"""bert_autocast_eval.py with its problem_type finding's fix applied: "setting `self.config.problem_type` before the
first call (for a model's config attribute, in the config the model is built with)": problem_type in BertConfig."""
import torch
from transformers import BertConfig, BertForSequenceClassification


def batch(seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, 200, (4, 16), generator=g)
    return ids, torch.randint(0, 3, (4,), generator=g)


def main():
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=64, num_labels=3,
                     problem_type="single_label_classification",
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForSequenceClassification(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    cmodel = torch.compile(model, backend="aot_eager")
    for epoch in range(2):
        model.train()
        for step in range(3):
            ids, y = batch(epoch * 10 + step)
            out = cmodel(input_ids=ids, labels=y)
            out.loss.backward()
            opt.step()
            opt.zero_grad()
        print(f"epoch {epoch} train loss {out.loss.item():.4f}")
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            ids, y = batch(999)
            logits = cmodel(input_ids=ids).logits
            acc = (logits.argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch} eval acc {acc:.3f} logits dtype {logits.dtype}")


if __name__ == "__main__":
    main()
