"""hf_llama_generate.py with its finding's fix applied: "compile it in place: `model.compile()`", so the calls
inside generate() go through the compiled forward."""
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    model.compile(backend="aot_eager")
    generation = GenerationConfig(max_new_tokens=5, do_sample=False, pad_token_id=0, eos_token_id=None)
    prompts = torch.randint(3, 128, (2, 6))
    with torch.no_grad():
        out = model.generate(input_ids=prompts, attention_mask=torch.ones_like(prompts), generation_config=generation)
    print(out.shape)


if __name__ == "__main__":
    main()
