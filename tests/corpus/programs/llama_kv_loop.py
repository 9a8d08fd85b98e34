# Manual greedy decoding loop with a growing KV cache on a tiny Llama.
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=2, vocab_size=100,
                     max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
compiled = torch.compile(model, backend="aot_eager")

ids = torch.randint(0, 100, (1, 6))
past = None
generated = ids
step_input = ids
with torch.no_grad():
    for step in range(6):
        out = compiled(input_ids=step_input, past_key_values=past, use_cache=True)
        past = out.past_key_values
        next_tok = out.logits[:, -1].argmax(-1, keepdim=True)
        generated = torch.cat([generated, next_tok], dim=1)
        step_input = next_tok
print("tokens:", generated[0].tolist())
