"""A sibling module the entry point imports relatively."""

import torch


def block(x):
    return torch.nn.functional.gelu(x) * 2
