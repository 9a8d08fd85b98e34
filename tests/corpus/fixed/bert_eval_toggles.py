"""bert_eval_toggles.py with its graph-break findings' fix applied: "What you control is whether your call runs it
... (an output option). Where one does, change it, or compute that part outside the compiled function": the requests
that ask for attentions are served by the eager model, so output_attentions=True never reaches the compiled one
(return_dict still toggled)."""
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
            runner = model if kw["output_attentions"] else cmodel      # debug requests: eager
            out = runner(input_ids=ids, attention_mask=mask, **kw)
            pooled = out.pooler_output if kw["return_dict"] else out[1]
            n_att = len(out.attentions) if kw["return_dict"] and out.attentions is not None else (
                len(out[2]) if (not kw["return_dict"] and kw["output_attentions"]) else 0)
            print(f"req {i}: pooled sum {pooled.sum().item():.4f} attentions {n_att}")


if __name__ == "__main__":
    main()
