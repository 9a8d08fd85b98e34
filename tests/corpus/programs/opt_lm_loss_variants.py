"""Language-model a tiny OPT (with sequence-length warmup) and a compiled shifted cross-entropy: mean
over non-pad tokens for training, summed NLL for perplexity in evaluation (pad ignored by its token id there)."""
import math
import torch
import torch.nn.functional as F
from transformers import OPTConfig, OPTForCausalLM

PAD = 1


@torch.compile(backend="aot_eager")
def lm_loss(logits, labels, ignore_index=-100, reduction="mean"):
    shift_logits = logits[:, :-1, :].reshape(-1, logits.size(-1))
    shift_labels = labels[:, 1:].reshape(-1)
    return F.cross_entropy(shift_logits, shift_labels, ignore_index=ignore_index, reduction=reduction)


def make_batch(g, batch_size, seq_len):
    ids = torch.randint(2, 120, (batch_size, seq_len), generator=g)
    ids[0, -4:] = PAD
    return ids, (ids != PAD).long()


def main():
    torch.manual_seed(0)
    config = OPTConfig(vocab_size=120, hidden_size=32, num_hidden_layers=1, ffn_dim=64, num_attention_heads=2,
                       max_position_embeddings=64, word_embed_proj_dim=32, pad_token_id=PAD, dropout=0.0)
    model = OPTForCausalLM(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    for step in range(6):
        model.train()
        ids, mask = make_batch(g, 4, 8 + 2 * step)          # sequence-length warmup
        labels = ids.masked_fill(mask == 0, -100)
        loss = lm_loss(compiled(input_ids=ids, attention_mask=mask).logits, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 3 == 2:
            model.eval()
            nll, tokens = 0.0, 0
            with torch.no_grad():
                for _ in range(2):
                    ids, mask = make_batch(g, 2, 24)
                    logits = compiled(input_ids=ids, attention_mask=mask).logits
                    nll += lm_loss(logits, ids, ignore_index=PAD, reduction="sum").item()
                    tokens += int((ids[:, 1:] != PAD).sum())
            print(f"step {step}: train loss {loss.item():.4f} eval ppl {math.exp(nll / tokens):.3f}")


if __name__ == "__main__":
    main()
