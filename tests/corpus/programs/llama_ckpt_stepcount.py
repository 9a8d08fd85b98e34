"""Tiny Llama, gradient checkpointing, a wrapper counting steps in an int attribute: blind round 1 (issue 51)."""
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM


class WarmupWrapper(nn.Module):
    def __init__(self, lm, warmup_steps=100):
        super().__init__()
        self.lm = lm
        self.warmup_steps = warmup_steps
        self.step = 0

    def forward(self, input_ids):
        self.step += 1
        scale = min(1.0, self.step / self.warmup_steps)
        out = self.lm(input_ids=input_ids, labels=input_ids)
        return out.loss * scale


def main():
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      max_position_embeddings=64)
    lm = LlamaForCausalLM(cfg)
    lm.gradient_checkpointing_enable()
    lm.train()
    wrapper = torch.compile(WarmupWrapper(lm), backend="aot_eager")
    opt = torch.optim.SGD(lm.parameters(), lr=0.1)
    for i in range(10):
        ids = torch.randint(0, 100, (2, 16))
        loss = wrapper(ids)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(i, round(loss.item(), 5))


if __name__ == "__main__":
    main()
