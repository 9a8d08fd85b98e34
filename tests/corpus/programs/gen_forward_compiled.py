# Greedy generation with a tiny GPT-2 whose forward is compiled.
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=64, vocab_size=100,
                    bos_token_id=0, eos_token_id=99, pad_token_id=99)
model = GPT2LMHeadModel(config).eval()
model.forward = torch.compile(model.forward, backend="aot_eager")

prompts = [torch.randint(1, 99, (1, 5)), torch.randint(1, 99, (1, 7))]
for ids in prompts:
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=6,
                             do_sample=False, pad_token_id=99)
    print("generated:", out[0].tolist())
