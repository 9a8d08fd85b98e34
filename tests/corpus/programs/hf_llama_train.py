"""Train a Llama-style causal LM for a few steps: torch.compile(model), model(**batch), an uneven last batch."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(config)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 128, (7, 12))
    loader = DataLoader(TensorDataset(tokens), batch_size=3)  # 3, 3, then 1
    model.train()
    for step, (input_ids,) in enumerate(loader):
        batch = {"input_ids": input_ids, "labels": input_ids}
        outputs = model(**batch)
        outputs.loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(step, outputs.loss.item())


if __name__ == "__main__":
    main()
