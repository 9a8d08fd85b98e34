"""A module whose forward branches on data, compiled without dynamic shapes: a graph break and a recompile."""

import torch

from ground_truth import counting_backend, write


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

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
