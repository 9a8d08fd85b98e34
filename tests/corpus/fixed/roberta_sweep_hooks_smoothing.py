"""roberta_sweep_hooks.py with its smoothing finding's fix applied: "a torch function that takes it as a Python number
(`F.dropout`'s `p`) cannot take a tensor: there, keep it fixed or write that step with tensor ops": the label
smoothing written out with the rate as a tensor, one compiled loss for every rate."""
import torch
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaForSequenceClassification

features = []


@torch.compile(backend="aot_eager")
def smoothed_cross_entropy(logits, t, eps):
    logp = F.log_softmax(logits, -1)
    nll = -logp.gather(-1, t[:, None]).squeeze(-1)
    return ((1 - eps) * nll - eps * logp.mean(-1)).mean()


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
        eps = torch.tensor(smoothing)
        with torch.no_grad():
            logits = cmodel(input_ids=ids).logits
        print(f"smoothing {smoothing:.2f} loss {smoothed_cross_entropy(logits, y, eps).item():.4f}")
    print("probe features collected:", len(features))


if __name__ == "__main__":
    main()
