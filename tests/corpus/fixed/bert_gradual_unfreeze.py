"""bert_gradual_unfreeze.py with its problem_type finding's fix applied: "setting `self.config.problem_type` before the
first call (for a model's config attribute, in the config the model is built with)"."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertConfig, BertForSequenceClassification


def make_loader(n=24, seq_len=16, batch_size=8):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 100, (n, seq_len), generator=g)
    labels = torch.randint(0, 3, (n,), generator=g)
    collate = lambda rows: {"input_ids": torch.stack([r[0] for r in rows]),
                            "attention_mask": torch.ones(len(rows), seq_len, dtype=torch.long),
                            "labels": torch.stack([r[1] for r in rows])}
    return DataLoader(TensorDataset(ids, labels), batch_size=batch_size, collate_fn=collate)


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32, num_labels=3, problem_type="single_label_classification",
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForSequenceClassification(config)
    model.bert.requires_grad_(False)            # stage 0: only the classifier head trains
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = make_loader()

    stages = [None, model.bert.encoder.layer[1], model.bert.encoder.layer[0], model.bert.embeddings]
    for stage, module in enumerate(stages):
        if module is not None:
            module.requires_grad_(True)
        model.train()
        for batch in loader:
            out = compiled(**batch)
            out.loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        print(f"stage {stage}: trainable={trainable} loss={out.loss.item():.4f}")

    model.eval()
    correct = 0
    with torch.no_grad():
        for batch in loader:
            logits = compiled(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
    print(f"eval accuracy: {correct}/24")


if __name__ == "__main__":
    main()
