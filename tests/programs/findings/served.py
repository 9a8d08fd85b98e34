"""Fifty calls at one shape and one at another: the first compile serves 50 calls, the recompile one."""

import torch


def scale(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x) * 2


compiled = torch.compile(scale, backend="aot_eager")
for _ in range(50):
    compiled(torch.randn(8))
compiled(torch.randn(16))
