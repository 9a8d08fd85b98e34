"""bart_label_smoothing_step.py with its finding's fix applied (the round's expert fix): "keep the data-dependent part
in tensor ops": the token count kept a tensor, the boolean-mask index replaced by multiplying by the mask and
summing, and the targets padded to one length (11)."""
import random

import torch
import torch.nn.functional as F
from transformers import BartConfig, BartForConditionalGeneration


def collate(pairs):
    src_L = max(len(s) for s, _ in pairs); tgt_L = 11  # fixed target length
    src = torch.full((len(pairs), src_L), 1); labels = torch.full((len(pairs), tgt_L), -100)
    for i, (s, t) in enumerate(pairs):
        src[i, :len(s)] = torch.tensor(s); labels[i, :len(t)] = torch.tensor(t)
    return {"input_ids": src, "attention_mask": (src != 1).long(), "labels": labels}


@torch.compile(backend="aot_eager")
def compute_loss(model, batch, eps=0.1):
    out = model(**batch)
    logits = out.logits
    labels = batch["labels"]
    lprobs = F.log_softmax(logits, dim=-1)
    mask = labels != -100
    nll = -lprobs.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    smooth = -lprobs.mean(-1)
    loss = (((1 - eps) * nll + eps * smooth) * mask).sum() / mask.sum()
    return loss


def main():
    torch.manual_seed(0); random.seed(0)
    cfg = BartConfig(vocab_size=150, d_model=32, encoder_layers=1, decoder_layers=1,
                     encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                     decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=1,
                     bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
    model = BartForConditionalGeneration(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    docs = [([0] + [random.randrange(3, 150) for _ in range(30)] + [2],
             [0] + [random.randrange(3, 150) for _ in range(random.randint(5, 9))] + [2]) for _ in range(40)]

    model.train()
    for epoch in range(2):
        random.shuffle(docs)
        for i in range(0, len(docs), 8):
            batch = collate(docs[i:i + 8])
            loss = compute_loss(model, batch)
            loss.backward()
            opt.step(); opt.zero_grad()
        print(f"epoch {epoch} last loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
