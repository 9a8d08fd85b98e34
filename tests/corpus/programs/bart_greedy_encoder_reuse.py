"""Summarize a few batches with a tiny BART: encode once, then greedy-decode by hand,
reusing encoder_outputs on every step (no KV cache, the way many tutorials write it)."""
import torch
from transformers import BartConfig, BartForConditionalGeneration


def build_model():
    torch.manual_seed(0)
    config = BartConfig(vocab_size=96, d_model=32, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2,
                        encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
    return BartForConditionalGeneration(config).eval()


@torch.no_grad()
def greedy_summarize(model, compiled, input_ids, attention_mask, max_new_tokens=6):
    encoder_outputs = model.get_encoder()(input_ids=input_ids, attention_mask=attention_mask)
    start = model.config.decoder_start_token_id
    decoder_input_ids = torch.full((input_ids.shape[0], 1), start, dtype=torch.long)
    for _ in range(max_new_tokens):
        out = compiled(encoder_outputs=encoder_outputs, attention_mask=attention_mask,
                       decoder_input_ids=decoder_input_ids, use_cache=False)
        next_tokens = out.logits[:, -1, :].argmax(dim=-1, keepdim=True)
        decoder_input_ids = torch.cat([decoder_input_ids, next_tokens], dim=-1)
    return decoder_input_ids, out.logits[:, -1].sum().item()


def main():
    model = build_model()
    compiled = torch.compile(model, backend="aot_eager")
    g = torch.Generator().manual_seed(1)
    # documents of different lengths, batched per length bucket
    for src_len in (12, 20, 12):
        input_ids = torch.randint(3, 96, (2, src_len), generator=g)
        attention_mask = torch.ones_like(input_ids)
        attention_mask[1, -3:] = 0
        summary, last_logit_sum = greedy_summarize(model, compiled, input_ids, attention_mask)
        print(f"src_len={src_len} summary={summary.tolist()} last_logits={last_logit_sum:.4f}")


if __name__ == "__main__":
    main()
