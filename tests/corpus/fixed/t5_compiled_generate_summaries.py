"""t5_compiled_generate_summaries.py with its finding's fix applied: "Compile the model in place instead, `model.compile(...)` on the model itself": generate() then runs compiled too."""
import torch
from transformers import T5Config, T5ForConditionalGeneration


def main():
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=320, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                   num_heads=4, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(cfg)
    model.compile(backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    model.train()
    for step in range(8):
        src = torch.randint(2, 320, (4, 48))
        tgt_len = 8 + 2 * (step % 4)  # summaries of 8..14 tokens
        labels = torch.randint(2, 320, (4, tgt_len))
        out = model(input_ids=src, attention_mask=torch.ones_like(src), labels=labels)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 4 == 3:
            print(f"step {step} tgt_len {tgt_len} loss {out.loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        for i in range(3):
            docs = torch.randint(2, 320, (2, 40 + 8 * i))
            summ = model.generate(input_ids=docs, attention_mask=torch.ones_like(docs),
                                  num_beams=2, max_new_tokens=10, do_sample=False)
            print(f"doc batch {i}: summary shape {tuple(summ.shape)} first {summ[0, :5].tolist()}")


if __name__ == "__main__":
    main()
