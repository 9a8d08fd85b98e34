"""greedy_decode_static.py with its finding's fix applied: "Leave `dynamic=False` out of torch.compile"."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=64)
    model = GPT2LMHeadModel(config).eval()
    fast_model = torch.compile(model, backend="aot_eager")
    prompt = torch.tensor([[5, 17, 42, 8]])
    generated = prompt
    max_new_tokens = 12
    with torch.no_grad():
        for step in range(max_new_tokens):
            logits = fast_model(input_ids=generated, use_cache=False).logits
            next_token = logits[:, -1, :].argmax(dim=-1, keepdim=True)
            generated = torch.cat([generated, next_token], dim=1)
    print("generated:", generated[0].tolist())


if __name__ == "__main__":
    main()
