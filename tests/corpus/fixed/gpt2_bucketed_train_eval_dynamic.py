"""gpt2_bucketed_train_eval.py with its size finding's other fix applied: "or pass dynamic=True" (the round's fix
1b)."""
import torch
import torch._dynamo
from transformers import GPT2Config, GPT2LMHeadModel


def make_batch(g, lengths, pad_id, multiple=8):
    T = -(-max(lengths) // multiple) * multiple
    ids = torch.full((len(lengths), T), pad_id, dtype=torch.long)
    mask = torch.zeros(len(lengths), T, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(0, 100, (n,), generator=g)
        mask[i, :n] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return ids, mask, labels


def main():
    torch._dynamo.config.cache_size_limit = 4      # "fail fast" instead of recompiling forever
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=1, n_head=2)
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    cmodel = torch.compile(model, backend="aot_eager", dynamic=True)
    pad_id = cfg.eos_token_id % cfg.vocab_size
    g = torch.Generator().manual_seed(0)
    model.eval()
    with torch.no_grad():                       # warm the compile cache before training
        ids, mask, labels = make_batch(g, [6, 8], pad_id)
        cmodel(input_ids=ids, attention_mask=mask, labels=labels)
    model.train()
    schedule = [[5, 7], [12, 9], [20, 3], [14, 16], [30, 2], [7, 7], [33, 40], [11, 12]]
    for step, lengths in enumerate(schedule):
        ids, mask, labels = make_batch(g, lengths, pad_id)
        loss = cmodel(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        msg = f"step {step} T={ids.shape[1]} loss {loss.item():.4f}"
        if step % 3 == 2:
            model.eval()
            with torch.no_grad():
                vids, vmask, vlabels = make_batch(g, [10, 10], pad_id)
                msg += f" val {cmodel(input_ids=vids, attention_mask=vmask, labels=vlabels).loss.item():.4f}"
            model.train()
        print(msg)


if __name__ == "__main__":
    main()
