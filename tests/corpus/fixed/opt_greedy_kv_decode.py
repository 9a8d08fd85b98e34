"""opt_greedy_kv_decode.py with its findings' fix applied (the round's expert fix): "torch.compile(..., dynamic=True)"."""
import torch
from transformers import OPTConfig, OPTForCausalLM


def main():
    torch.manual_seed(0)
    cfg = OPTConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, ffn_dim=64,
                    num_attention_heads=2, max_position_embeddings=64, word_embed_proj_dim=32,
                    pad_token_id=1, bos_token_id=2, eos_token_id=2)
    model = OPTForCausalLM(cfg).eval()
    model = torch.compile(model, backend="aot_eager", dynamic=True)

    prompts = [[5, 9, 14, 22, 7], [8, 3, 11], [40, 41, 42, 43, 44, 45, 46]]

    @torch.no_grad()
    def greedy(prompt_ids_list, max_new_tokens=6):
        # left-pad the prompts
        L = max(len(p) for p in prompt_ids_list)
        ids = torch.full((len(prompt_ids_list), L), cfg.pad_token_id)
        mask = torch.zeros_like(ids)
        for i, p in enumerate(prompt_ids_list):
            ids[i, L - len(p):] = torch.tensor(p)
            mask[i, L - len(p):] = 1
        out = model(input_ids=ids, attention_mask=mask, use_cache=True)
        past = out.past_key_values
        generated = ids
        for step in range(max_new_tokens):
            next_tok = out.logits[:, -1, :].argmax(-1, keepdim=True)
            generated = torch.cat([generated, next_tok], dim=1)
            mask = torch.cat([mask, torch.ones_like(next_tok)], dim=1)
            if (next_tok == cfg.eos_token_id).all().item():
                break
            out = model(input_ids=next_tok, attention_mask=mask, past_key_values=past, use_cache=True)
            past = out.past_key_values
        return generated

    for batch in (prompts[:2], prompts):
        g = greedy(batch)
        print(g.shape, g[:, -6:].tolist())


if __name__ == "__main__":
    main()
