"""A small hyper-parameter sweep in one process: for each (hidden size, depth, heads) a fresh tiny
ALBERT classifier is built, compiled, trained for a few steps and scored on a held-out batch."""
import itertools
import torch
from transformers import AlbertConfig, AlbertForSequenceClassification


def data(seed, n_batches, batch_size=8, seq_len=16):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_batches):
        ids = torch.randint(2, 120, (batch_size, seq_len), generator=g)
        out.append({"input_ids": ids, "attention_mask": torch.ones_like(ids),
                    "labels": (ids[:, 0] > 60).long()})
    return out


def run_trial(hidden, layers, heads, train, val):
    torch.manual_seed(0)
    config = AlbertConfig(vocab_size=120, embedding_size=16, hidden_size=hidden, num_hidden_layers=layers,
                          num_attention_heads=heads, intermediate_size=2 * hidden, max_position_embeddings=32,
                          num_labels=2, problem_type="single_label_classification",
                          hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, classifier_dropout_prob=0.0)
    model = AlbertForSequenceClassification(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for batch in train:
        compiled(**batch).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        out = compiled(**val)
    acc = (out.logits.argmax(-1) == val["labels"]).float().mean().item()
    return out.loss.item(), acc


def main():
    train, (val,) = data(0, 3), data(1, 1)
    results = {}
    for hidden, layers, heads in itertools.product((32, 64), (1, 2), (2, 4)):
        loss, acc = run_trial(hidden, layers, heads, train, val)
        results[(hidden, layers, heads)] = loss
        print(f"hidden={hidden} layers={layers} heads={heads}: val loss {loss:.4f} acc {acc:.3f}")
    best = min(results, key=results.get)
    print("best", best)


if __name__ == "__main__":
    main()
