"""bert_cls_no_auto_dynamic.py with its finding's fix applied: "Leave torch._dynamo.config.automatic_dynamic_shapes
at its default (True)": the setting is gone (recompile_limit stays 3)."""
import torch
import torch._dynamo
from transformers import BertConfig, BertForSequenceClassification


def main():
    torch._dynamo.config.recompile_limit = 3
    torch.manual_seed(0)
    config = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, num_labels=3)
    classifier = BertForSequenceClassification(config).eval()
    classifier = torch.compile(classifier, backend="aot_eager")
    seq_lens = [10, 14, 18, 22, 26, 30]
    with torch.no_grad():
        for seq_len in seq_lens:
            input_ids = torch.randint(0, 120, (4, seq_len))
            token_type_ids = torch.zeros_like(input_ids)
            logits = classifier(input_ids=input_ids, token_type_ids=token_type_ids).logits
            print(seq_len, logits.argmax(-1).tolist())


if __name__ == "__main__":
    main()
