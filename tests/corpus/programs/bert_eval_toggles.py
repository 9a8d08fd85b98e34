"""A tiny BERT encoder served in eval, a debug endpoint asking for attentions or tuples now and then
(output_attentions and return_dict toggled per request): blind round 3 (issue 51)."""
import torch
from transformers import BertConfig, BertModel

REQUESTS = [
    dict(output_attentions=False, return_dict=True),
    dict(output_attentions=True, return_dict=True),    # debug request
    dict(output_attentions=False, return_dict=False),  # legacy client wants tuples
    dict(output_attentions=False, return_dict=True),
    dict(output_attentions=True, return_dict=False),
]


def main():
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64, attn_implementation="eager")
    model = BertModel(cfg).eval()
    cmodel = torch.compile(model, backend="aot_eager")
    ids = torch.randint(0, 120, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.long)
    with torch.no_grad():
        for i, kw in enumerate(REQUESTS):
            out = cmodel(input_ids=ids, attention_mask=mask, **kw)
            pooled = out.pooler_output if kw["return_dict"] else out[1]
            n_att = len(out.attentions) if kw["return_dict"] and out.attentions is not None else (
                len(out[2]) if (not kw["return_dict"] and kw["output_attentions"]) else 0)
            print(f"req {i}: pooled sum {pooled.sum().item():.4f} attentions {n_att}")


if __name__ == "__main__":
    main()
