"""Sampling from a small GPT-Neo with a hand-written decoding loop, the model compiled with dynamic=False ("static
shapes are faster"): a prefill, then one token at a time with past_key_values and a growing attention_mask,
temperature and top-k sampling outside the compiled model; 2 prompts (6 and 9 tokens) x 12 new tokens (blind
round 9)."""
import torch
from transformers import GPTNeoConfig, GPTNeoForCausalLM


def sample(logits, temperature=0.8, top_k=20):
    logits = logits / temperature
    v, _ = torch.topk(logits, top_k)
    logits[logits < v[:, [-1]]] = -float("inf")
    return torch.multinomial(torch.softmax(logits, -1), 1)


def main():
    torch.manual_seed(0)
    cfg = GPTNeoConfig(vocab_size=128, max_position_embeddings=128, hidden_size=64, num_layers=2,
                       num_heads=4, attention_types=[[["global", "local"], 1]], window_size=16,
                       intermediate_size=128)
    model = GPTNeoForCausalLM(cfg).eval()
    # static shapes are faster, so turn dynamic off
    fast_model = torch.compile(model, backend="aot_eager", dynamic=False)

    @torch.no_grad()
    def generate(prompt, max_new_tokens=12):
        attn = torch.ones_like(prompt)
        out = fast_model(input_ids=prompt, attention_mask=attn, use_cache=True)
        past = out.past_key_values
        tok = sample(out.logits[:, -1, :])
        generated = [tok]
        for _ in range(max_new_tokens - 1):
            attn = torch.cat([attn, torch.ones_like(tok)], dim=1)
            out = fast_model(input_ids=tok, attention_mask=attn, past_key_values=past, use_cache=True)
            past = out.past_key_values
            tok = sample(out.logits[:, -1, :])
            generated.append(tok)
        return torch.cat([prompt] + generated, dim=1)

    for n in (6, 9):
        prompt = torch.randint(0, 128, (2, n))
        seq = generate(prompt)
        print("prompt len", n, "->", seq.shape[1], seq[0, -5:].tolist())


if __name__ == "__main__":
    main()
