"""T5ForConditionalGeneration fine-tuned on toy pairs: a compiled compute_loss(batch) runs model(**batch) and counts
the target tokens with (labels != -100).sum().item() to weight the loss; source and target lengths change per step
(6 steps) (blind round 10)."""
import torch
from transformers import T5Config, T5ForConditionalGeneration


def make_batch(bs, src_len, tgt_len):
    ids = torch.randint(2, 200, (bs, src_len))
    mask = torch.ones_like(ids)
    mask[0, src_len - 2:] = 0
    labels = torch.randint(2, 200, (bs, tgt_len))
    labels[:, -1] = -100
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def main():
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=200, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                   num_heads=4, decoder_start_token_id=0, pad_token_id=0, dropout_rate=0.0)
    model = T5ForConditionalGeneration(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    @torch.compile(backend="aot_eager")
    def compute_loss(batch):
        out = model(**batch)
        n_tok = (batch["labels"] != -100).sum().item()
        return out.loss * n_tok, n_tok

    lens = [(12, 8), (12, 8), (15, 9), (11, 7), (14, 10), (12, 8)]
    total_tok = 0
    for step, (s, t) in enumerate(lens):
        batch = make_batch(4, s, t)
        loss, n = compute_loss(batch)
        (loss / n).backward()
        opt.step(); opt.zero_grad()
        total_tok += n
        print(f"step {step} loss/token {loss.item() / n:.4f} tokens {n}")
    print("tokens seen", total_tok)


if __name__ == "__main__":
    main()
