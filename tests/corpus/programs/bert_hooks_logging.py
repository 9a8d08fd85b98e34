"""BERT classifier counting calls in a global, logging in forward, hooks added late: blind round 1 (issue 51)."""
import logging

import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

logger = logging.getLogger("myproject.model")
NUM_FORWARD_CALLS = 0
activation_norms = []


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=64)
        self.bert = BertModel(cfg)
        self.head = nn.Linear(32, 2)

    def forward(self, input_ids):
        global NUM_FORWARD_CALLS
        NUM_FORWARD_CALLS += 1
        logger.info("forward %d, batch shape %s", NUM_FORWARD_CALLS, tuple(input_ids.shape))
        h = self.bert(input_ids=input_ids).last_hidden_state
        return self.head(h[:, 0])


def record_norm(module, args, output):
    activation_norms.append(output[0].detach().norm())


def main():
    logging.basicConfig(level=logging.WARNING)
    torch.manual_seed(0)
    model = Classifier().eval()
    model = torch.compile(model, backend="aot_eager")
    ids = torch.randint(0, 120, (2, 12))
    with torch.no_grad():
        print("first", round(model(ids).sum().item(), 4))
        for layer in model.bert.encoder.layer:
            layer.attention.register_forward_hook(record_norm)
        for i in range(3):
            print("call", i, round(model(ids).sum().item(), 4))
    print("calls counted:", NUM_FORWARD_CALLS)
    print("hook recorded", len(activation_norms), "norms (expected 6)")


if __name__ == "__main__":
    main()
