"""hf_gpt2_train.py with its size finding's fix applied: "Drop it (DataLoader(..., drop_last=True))" (the shorter last
batch; the program batches its data itself, so its batches() takes drop_last as a DataLoader does)."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel


def batches(data, batch_size, drop_last=False):
    stop = len(data) - len(data) % batch_size if drop_last else len(data)
    for start in range(0, stop, batch_size):
        chunk = data[start:start + batch_size]
        yield {"input_ids": chunk, "attention_mask": torch.ones_like(chunk), "labels": chunk}


def main():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(config)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randint(0, 128, (10, 16))  # 10 sequences, batches of 4: the last 2 are dropped
    model.train()
    for epoch in range(2):
        for batch in batches(data, 4, drop_last=True):
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
