"""Fine-tune a tiny Marian translation model for a few steps with the compiled model, then
translate a couple of held-out batches with generate() on the same compiled model."""
import torch
from transformers import MarianConfig, MarianMTModel


def make_pairs(g, n, src_len=10, tgt_len=8):
    src = torch.randint(3, 80, (n, src_len), generator=g)
    tgt = torch.randint(3, 80, (n, tgt_len), generator=g)
    return {"input_ids": src, "attention_mask": torch.ones_like(src), "labels": tgt}


def main():
    torch.manual_seed(0)
    config = MarianConfig(vocab_size=80, d_model=32, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                          decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=0,
                          eos_token_id=1, decoder_start_token_id=0, forced_eos_token_id=None)
    model = MarianMTModel(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.1, total_iters=4)
    g = torch.Generator().manual_seed(0)
    model.train()
    for step in range(4):
        out = compiled(**make_pairs(g, 4))
        out.loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        print(f"step {step} loss {out.loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")

    model.eval()
    for i in range(2):
        batch = make_pairs(g, 2)
        with torch.no_grad():
            hyp = compiled.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                    max_new_tokens=6, do_sample=False, num_beams=1)
        print(f"batch {i} translations {hyp.tolist()}")


if __name__ == "__main__":
    main()
