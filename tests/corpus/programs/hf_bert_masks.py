"""Encode batches of sentences with a small BERT: padded to each batch's longest, attention masks, keyword call."""
import argparse

import torch
from transformers import BertConfig, BertModel


def make_batch(lengths, vocab=100):
    longest = max(lengths)
    input_ids = torch.zeros(len(lengths), longest, dtype=torch.long)
    attention_mask = torch.zeros(len(lengths), longest, dtype=torch.long)
    for row, length in enumerate(lengths):
        input_ids[row, :length] = torch.randint(1, vocab, (length,))
        attention_mask[row, :length] = 1
    return input_ids, attention_mask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="aot_eager")
    args = parser.parse_args()
    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    model = BertModel(config).eval()
    model = torch.compile(model, backend=args.backend)
    batches = [[8, 5], [12, 7], [16, 16], [10, 3]]
    with torch.no_grad():
        for lengths in batches:
            input_ids, attention_mask = make_batch(lengths)
            out = model(input_ids=input_ids, attention_mask=attention_mask)
            print(tuple(out.last_hidden_state.shape))


if __name__ == "__main__":
    main()
