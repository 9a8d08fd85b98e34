"""A decoder step whose attention passes `is_causal=(T > 1)`: once the length is dynamic the flag is a SymBool,
which scaled_dot_product_attention refuses, so Dynamo gives the frame up; the prompt, then one token per step."""
import torch
import torch.nn.functional as F
from torch import nn


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        T = x.shape[1]
        q, k, v = self.qkv(x).view(1, T, 3, 2, 4).permute(2, 0, 3, 1, 4)
        return F.scaled_dot_product_attention(q, k, v, is_causal=(T > 1)).sum()


def main():
    torch.manual_seed(0)
    step = torch.compile(Step(), backend="aot_eager")
    with torch.no_grad():
        for prompt in (5, 7):
            total = step(torch.randn(1, prompt, 8))
            for _ in range(3):
                total = total + step(torch.randn(1, 1, 8))
            print(f"prompt {prompt}: {total.item():.4f}")


if __name__ == "__main__":
    main()
