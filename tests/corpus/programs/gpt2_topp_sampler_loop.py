"""Hand-written top-p sampling with a tiny GPT-2: one compiled function runs the prefix and samples the next token."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

EOS = 299


@torch.compile(backend="aot_eager")
def next_token(model, ids, top_p, temperature):
    logits = model(input_ids=ids).logits[:, -1, :] / temperature
    probs = torch.softmax(logits, dim=-1)
    sorted_p, sorted_idx = torch.sort(probs, descending=True, dim=-1)
    cum = sorted_p.cumsum(-1)
    sorted_p[cum - sorted_p > top_p] = 0.0
    choice = torch.multinomial(sorted_p / sorted_p.sum(-1, keepdim=True), 1)
    tok = sorted_idx.gather(-1, choice)
    done = bool((tok == EOS).all())  # stop when every row hit EOS
    return tok, done


def main():
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=300, n_positions=128, n_embd=64, n_layer=2, n_head=4,
                     eos_token_id=EOS, bos_token_id=EOS)
    model = GPT2LMHeadModel(cfg).eval()
    prompts = [torch.randint(0, 299, (2, n)) for n in (6, 9, 12)]
    with torch.no_grad():
        for pi, ids in enumerate(prompts):
            for t in range(12):
                tok, done = next_token(model, ids, 0.9, 0.8 if pi < 2 else 1.0)
                ids = torch.cat([ids, tok], dim=1)
                if done:
                    break
            print(f"prompt {pi}: generated {ids.shape[1]} tokens, last {ids[0, -4:].tolist()}")


if __name__ == "__main__":
    main()
