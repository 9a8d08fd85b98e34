"""generate() with a static cache and no torch.compile of the user's: transformers compiles the forward itself on
CUDA. Prompts of two lengths and two batch sizes, as a user serving requests would send them."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=300)).cuda().eval()
    for batch, length in ((1, 7), (1, 7), (1, 11), (2, 7)):
        prompt = torch.randint(0, 300, (batch, length), device="cuda")
        with torch.no_grad():
            out = model.generate(prompt, max_new_tokens=8, do_sample=False, cache_implementation="static",
                                 pad_token_id=0)
        print("generated", tuple(out.shape), out[0, -3:].tolist())


if __name__ == "__main__":
    main()
