"""Fine-tune a tiny GPT-2 on random tokens: compiled model, model(**batch) with labels, an uneven last batch."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def batches(data, batch_size):
    for start in range(0, len(data), batch_size):
        chunk = data[start:start + batch_size]
        yield {"input_ids": chunk, "attention_mask": torch.ones_like(chunk), "labels": chunk}


def main():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(config)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randint(0, 128, (10, 16))  # 10 sequences, batches of 4: the last has 2
    model.train()
    for epoch in range(2):
        for batch in batches(data, 4):
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
