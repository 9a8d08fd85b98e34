"""Greedy generation with a compiled GPT-2 forward: generate() with its KV cache."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(config).eval()
    model.forward = torch.compile(model.forward, backend="aot_eager")
    prompt = torch.randint(0, 128, (1, 5))
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=6, do_sample=False, pad_token_id=0)
    print(out.tolist())


if __name__ == "__main__":
    main()
