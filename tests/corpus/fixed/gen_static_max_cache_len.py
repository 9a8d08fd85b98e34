"""gen_static.py with its cache-length fix applied: "generate(..., max_cache_len=N)" (16: the longest prompt, 11, plus
max_new_tokens, 5), so every prompt gets a static cache of one size and the decoding step's version is reused."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         pad_token_id=0, bos_token_id=1, eos_token_id=2)
    model = LlamaForCausalLM(config).eval()

    model.generation_config.cache_implementation = "static"
    model.forward = torch.compile(model.forward, backend="aot_eager", fullgraph=True)

    prompts = [
        torch.randint(3, 128, (1, 6)),
        torch.randint(3, 128, (1, 11)),
        torch.randint(3, 128, (2, 6)),
        torch.randint(3, 128, (2, 11)),
    ]
    for ids in prompts:
        mask = torch.ones_like(ids)
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=5, do_sample=False, max_cache_len=16,
                             pad_token_id=0)
        print(tuple(ids.shape), "->", out[:, ids.shape[1]:].tolist())


if __name__ == "__main__":
    main()
