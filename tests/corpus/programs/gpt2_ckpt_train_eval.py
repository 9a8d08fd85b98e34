"""GPT-2 trained with gradient checkpointing, its perplexity read every 2 steps under no_grad: blind round 2
(issue 51)."""
import math

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                     resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1)
    model = GPT2LMHeadModel(cfg)
    model.gradient_checkpointing_enable()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    cmodel = torch.compile(model, backend="aot_eager")
    val = torch.randint(0, 100, (2, 24), generator=torch.Generator().manual_seed(123))
    for step in range(4):
        model.train()
        ids = torch.randint(0, 100, (2, 24), generator=torch.Generator().manual_seed(step))
        loss = cmodel(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} train loss {loss.item():.4f}")
        if step % 2 == 1:
            model.eval()
            with torch.no_grad():
                vloss = cmodel(input_ids=val, labels=val).loss
            print(f"step {step} val ppl {math.exp(vloss.item()):.2f}")


if __name__ == "__main__":
    main()
