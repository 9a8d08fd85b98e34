"""gpt2_varlen_batch.py with its graph-break finding's fix applied: "Adding that function to
torch._dynamo.config.ignore_logging_functions": transformers' `warning_once` (a method it puts on logging.Logger)."""
import logging

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def fake_tokenizer(texts_lengths, batch_size=2):
    """Pretend tokenizer(..., padding='longest', return_tensors='pt')."""
    longest = max(texts_lengths)
    input_ids = torch.randint(0, 100, (batch_size, longest))
    attention_mask = torch.ones(batch_size, longest, dtype=torch.long)
    for row, n in enumerate(texts_lengths):
        attention_mask[row, n:] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask}


def main():
    torch._dynamo.config.ignore_logging_functions.add(logging.Logger.warning_once)
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=64)
    model = GPT2LMHeadModel(config).eval()
    compiled_model = torch.compile(model, backend="aot_eager")
    batches = [[8, 5], [11, 9], [16, 16], [7, 13], [23, 4]]
    with torch.no_grad():
        for lengths in batches:
            batch = fake_tokenizer(lengths)
            out = compiled_model(**batch, labels=batch["input_ids"])
            print(f"len={batch['input_ids'].shape[1]:2d} loss={out.loss.item():.4f}")


if __name__ == "__main__":
    main()
