"""Compiles once, then fails with the script's own error."""
import torch


def helper(x):
    return torch.relu(x) + 1


def fail():
    raise ValueError("the script's own failure")


torch.compile(helper, backend="aot_eager")(torch.randn(4))
fail()
