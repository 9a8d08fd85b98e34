"""A T5-style encoder-decoder trained on random pairs, compiled, with labels; targets of two lengths."""
import torch
from transformers import T5Config, T5ForConditionalGeneration


def main():
    torch.manual_seed(0)
    config = T5Config(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                      decoder_start_token_id=0, pad_token_id=0)
    model = T5ForConditionalGeneration(config)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for step in range(4):
        target_len = 6 if step < 2 else 9
        input_ids = torch.randint(1, 128, (2, 10))
        labels = torch.randint(1, 128, (2, target_len))
        loss = model(input_ids=input_ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(step, round(loss.item(), 3))


if __name__ == "__main__":
    main()
