"""BERT inference compiled with mode="reduce-overhead" (CUDA graphs), sequence lengths drawn from a set of 7: one
CUDA graph recorded per distinct length (GPU only; run with the tracer's --device cuda)."""
import torch
from transformers import BertConfig, BertModel


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=256)
    model = torch.compile(BertModel(config).eval(), mode="reduce-overhead")
    lengths = [16, 24, 32, 40, 48, 56, 64] * 3
    with torch.no_grad():
        for length in lengths:
            ids = torch.randint(0, 512, (4, length))
            out = model(input_ids=ids, attention_mask=torch.ones_like(ids))
    print(out.last_hidden_state.shape)


if __name__ == "__main__":
    main()
