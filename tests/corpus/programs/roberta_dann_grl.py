"""Domain-adversarial fine-tuning (DANN) of a tiny RoBERTa: a gradient-reversal layer feeds a domain
classifier, its strength ramps with the usual 2/(1+exp(-10p))-1 schedule, and tokens are randomly
masked as augmentation during training."""
import math
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import RobertaConfig, RobertaModel


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None


class DANN(nn.Module):
    def __init__(self, config, mask_prob=0.15):
        super().__init__()
        self.encoder = RobertaModel(config, add_pooling_layer=False)
        self.label_head = nn.Linear(config.hidden_size, 2)
        self.domain_head = nn.Sequential(nn.Linear(config.hidden_size, 16), nn.ReLU(), nn.Linear(16, 2))
        self.mask_prob, self.mask_id = mask_prob, config.vocab_size - 1

    def forward(self, input_ids, attention_mask, lambd):
        if self.training and random.random() < 0.5:        # augment half of the batches
            drop = torch.rand(input_ids.shape) < self.mask_prob
            input_ids = input_ids.masked_fill(drop, self.mask_id)
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, 0]
        return self.label_head(h), self.domain_head(GradReverse.apply(h, lambd))


def main():
    random.seed(0)
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=40, pad_token_id=1)
    model = DANN(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    total_steps = 8
    for step in range(total_steps):
        p = step / total_steps
        lambd = 2.0 / (1.0 + math.exp(-10 * p)) - 1.0
        ids = torch.randint(3, 99, (8, 12))
        mask = torch.ones_like(ids)
        y, domain = torch.randint(0, 2, (8,)), torch.arange(8) % 2
        logits, domain_logits = compiled(ids, mask, lambd)
        loss = F.cross_entropy(logits[domain == 0], y[domain == 0]) + F.cross_entropy(domain_logits, domain)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {step} lambda={lambd:.3f} loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
