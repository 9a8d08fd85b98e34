"""RoBERTa: a grad-enabled warm-up, a probe hook added after compiling, a new compiled loss per label smoothing:
blind round 2 (issue 51)."""
import torch
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaForSequenceClassification

features = []


def main():
    torch.manual_seed(0)
    cfg = RobertaConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=40, num_labels=4,
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, pad_token_id=1)
    model = RobertaForSequenceClassification(cfg)
    cmodel = torch.compile(model, backend="aot_eager")
    ids = torch.randint(3, 120, (8, 16))
    y = torch.randint(0, 4, (8,))
    # warm-up call, then attach a probe hook to the classifier
    cmodel(input_ids=ids)
    model.classifier.dense.register_forward_hook(lambda m, inp, out: features.append(out.detach()))
    for smoothing in [0.0, 0.05, 0.1, 0.15, 0.2]:
        loss_fn = torch.compile(lambda logits, t: F.cross_entropy(logits, t, label_smoothing=smoothing),
                                backend="aot_eager")
        with torch.no_grad():
            logits = cmodel(input_ids=ids).logits
        print(f"smoothing {smoothing:.2f} loss {loss_fn(logits, y).item():.4f}")
    print("probe features collected:", len(features))


if __name__ == "__main__":
    main()
