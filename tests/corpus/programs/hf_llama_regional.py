"""Regional compilation: compile each decoder layer of a Llama-style model, then run with use_cache on and off."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(config).eval()
    for layer in model.model.layers:
        layer.compile(backend="aot_eager")
    input_ids = torch.randint(0, 128, (2, 8))
    with torch.no_grad():
        for use_cache in (True, False):
            out = model(input_ids=input_ids, use_cache=use_cache)
            print(use_cache, out.logits.shape)


if __name__ == "__main__":
    main()
