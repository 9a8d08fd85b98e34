"""mistral_train_eval_probe with its break finding's fix: "compute that part outside the compiled function" (the
round's expert fix): no output_hidden_states; the final hidden state is taken by a forward hook on model.model.norm
registered before compiling, into a dict filled beforehand."""
import torch
from transformers import MistralConfig, MistralForCausalLM


def batch(bs=4, seq=32):
    ids = torch.randint(0, 256, (bs, seq))
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def main():
    torch.manual_seed(0)
    cfg = MistralConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                        sliding_window=None)
    model = MistralForCausalLM(cfg)
    last_hidden = {"h": None}
    model.model.norm.register_forward_hook(lambda m, i, o: last_hidden.__setitem__("h", o.detach()))
    model.compile(backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    val = batch(bs=2, seq=48)
    for step in range(9):
        model.train()
        out = model(**batch())
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad()
        if step % 3 == 2:
            model.eval()
            with torch.no_grad():
                v = model(**val)
            probe = last_hidden["h"].norm(dim=-1).mean()
            print(f"step {step} train {out.loss.item():.4f} val {v.loss.item():.4f} probe {probe.item():.3f}")


if __name__ == "__main__":
    main()
