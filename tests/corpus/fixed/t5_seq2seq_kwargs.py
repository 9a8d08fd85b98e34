"""t5_seq2seq_kwargs.py with its labels finding's fix applied: "To skip the first, static version:
torch._dynamo.mark_dynamic(tensor, dim) before the first call": labels' dimension 1."""
import torch
import torch._dynamo
from transformers import T5Config, T5ForConditionalGeneration

SRC_LEN = 20


def main():
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                   num_decoder_layers=2, num_heads=4, decoder_start_token_id=0,
                   pad_token_id=0, dropout_rate=0.0)
    model = T5ForConditionalGeneration(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    compiled = torch.compile(model, backend="aot_eager")
    for step, tgt_len in enumerate([6, 9, 12, 7, 11]):
        g = torch.Generator().manual_seed(step)
        input_ids = torch.randint(1, 128, (4, SRC_LEN), generator=g)
        attention_mask = torch.ones_like(input_ids)
        labels = torch.randint(1, 128, (4, tgt_len), generator=g)
        torch._dynamo.mark_dynamic(labels, 1)
        out = compiled(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} tgt_len {tgt_len} loss {out.loss.item():.4f}")
    # validation: teacher-forced scoring with explicit decoder inputs
    model.eval()
    with torch.no_grad():
        g = torch.Generator().manual_seed(100)
        input_ids = torch.randint(1, 128, (4, SRC_LEN), generator=g)
        dec = torch.randint(1, 128, (4, 8), generator=g)
        out = compiled(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
                       decoder_input_ids=dec)
        print("val logits", tuple(out.logits.shape), f"{out.logits.float().mean().item():.4f}")


if __name__ == "__main__":
    main()
