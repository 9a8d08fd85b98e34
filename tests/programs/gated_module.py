"""A module whose forward branches on data, compiled without dynamic shapes: a graph break and a recompile.
Its forward sits under two pass-through decorators, stacked as transformers stacks its own on a model's forward."""

import functools

import torch

from ground_truth import counting_backend, write


def passes_through(function):
    @functools.wraps(function)
    def outer_wrapper(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    return outer_wrapper


def renames_keywords(function):
    @functools.wraps(function)
    def inner_wrapper(self, *args, **kwargs):
        kwargs.pop("legacy", None)
        return function(self, *args, **kwargs)

    return inner_wrapper


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    @passes_through
    @renames_keywords
    def forward(self, x):
        h = self.lin(x)
        if h.mean() > 0:
            return h.relu()
        return torch.tanh(h)


torch.manual_seed(0)
gate = torch.compile(Gate(), backend=counting_backend, dynamic=False)
gate(torch.randn(4, 8))  # call: first shape
gate(torch.randn(6, 8))  # call: second shape
write()
