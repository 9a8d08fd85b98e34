"""GPT-2 generate() with a static cache, compiled as the docs suggest, on the GPU."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=300)).cuda().eval()
    model.forward = torch.compile(model.forward)
    prompt = torch.randint(0, 300, (1, 7), device="cuda")
    with torch.no_grad():
        for new in (8, 8, 12):
            out = model.generate(prompt, max_new_tokens=new, do_sample=False, cache_implementation="static",
                                 pad_token_id=0)
            print("generated", out.shape[1], out[0, -3:].tolist())


if __name__ == "__main__":
    main()
