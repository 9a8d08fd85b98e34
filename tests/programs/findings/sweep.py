"""An activation sweep that passes the function as an argument: a recompile per activation, then the limit."""

import torch
import torch.nn.functional as F


def layer(x: torch.Tensor, act) -> torch.Tensor:  # noqa: ANN001 - any activation function
    return act(x @ x.T).sum()


compiled = torch.compile(layer, backend="aot_eager", recompile_limit=3)
x = torch.randn(8, 8)
activations = [torch.relu, torch.tanh, torch.sigmoid, F.gelu, F.silu]
for _ in range(4):
    for act in activations:
        compiled(x, act)
