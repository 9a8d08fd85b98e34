"""A small Bloom LM fine-tuned with gradient accumulation and a linear warmup schedule (from lr 0.0): the whole
micro-step is compiled (forward, the loss over ACCUM, backward, and on every 4th step clipping, the optimizer, the
scheduler and zero_grad), the step index passed in as a Python int, batches padded to their longest row by a custom
collate (blind round 9)."""
import random

import torch
from transformers import BloomConfig, BloomForCausalLM, get_linear_schedule_with_warmup

ACCUM = 4


def collate(seqs, pad_id=0):
    L = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), L), pad_id); mask = torch.zeros(len(seqs), L, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s; mask[i, :len(s)] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def main():
    torch.manual_seed(0); random.seed(0)
    cfg = BloomConfig(vocab_size=128, hidden_size=64, n_layer=2, n_head=4)
    model = BloomForCausalLM(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = [torch.randint(1, 128, (random.randint(8, 24),)) for _ in range(48)]
    batches = [collate(data[i:i + 4]) for i in range(0, len(data), 4)]
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=2, num_training_steps=len(batches) // ACCUM)

    @torch.compile(backend="aot_eager")
    def micro_step(batch, step):
        out = model(**batch)
        loss = out.loss / ACCUM
        loss.backward()
        if (step + 1) % ACCUM == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
        return out.loss.detach()

    model.train()
    for step, batch in enumerate(batches):
        loss = micro_step(batch, step)
        if (step + 1) % ACCUM == 0:
            print(f"update {(step + 1) // ACCUM} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")


if __name__ == "__main__":
    main()
