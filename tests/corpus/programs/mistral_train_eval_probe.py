"""MistralForCausalLM compiled in place with model.compile(), trained with labels; every third step a model.eval()
+ no_grad validation called with output_hidden_states=True computes a hidden-state probe, so transformers installs
its output-capturing hooks on that first evaluation call (blind round 10)."""
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
                v = model(**val, output_hidden_states=True)
            probe = v.hidden_states[-1].norm(dim=-1).mean()
            print(f"step {step} train {out.loss.item():.4f} val {v.loss.item():.4f} probe {probe.item():.3f}")


if __name__ == "__main__":
    main()
