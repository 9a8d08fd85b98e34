"""A small MarianMTModel compiled in place with model.compile(): 3 fine-tuning steps with labels, then
model.eval() and model.generate(**enc, max_new_tokens=8) under no_grad through the same compiled model (blind
round 10)."""
import torch
from transformers import MarianConfig, MarianMTModel


def main():
    torch.manual_seed(0)
    cfg = MarianConfig(vocab_size=120, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                       decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                       pad_token_id=119, eos_token_id=0, decoder_start_token_id=119, forced_eos_token_id=0)
    model = MarianMTModel(cfg)
    model.compile(backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    src = torch.randint(1, 119, (2, 10))
    tgt = torch.randint(1, 119, (2, 8))
    for step in range(3):
        loss = model(input_ids=src, attention_mask=torch.ones_like(src), labels=tgt).loss
        loss.backward(); opt.step(); opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}")

    model.eval()
    enc = {"input_ids": torch.randint(1, 119, (2, 7)), "attention_mask": torch.ones(2, 7, dtype=torch.long)}
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=8, num_beams=1, do_sample=False, min_new_tokens=8)
    print("generated", out.shape, out[0].tolist())


if __name__ == "__main__":
    main()
