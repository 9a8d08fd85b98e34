"""A graph break in the user's own line: float() of a tensor needs its value, which Dynamo does not trace."""
import torch


def scale(x):
    y = x * 2
    s = float(y.norm())  # the break
    return y / s


print(torch.compile(scale, backend="eager")(torch.randn(8)).device)
