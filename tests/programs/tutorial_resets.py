"""Shaped like PyTorch's torch.compile tutorial: sections separated by resets, as notebooks and test suites do."""

import torch

from ground_truth import counting_backend, reset, write


def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


opt_foo = torch.compile(foo, backend=counting_backend)
print(opt_foo(torch.randn(10, 10), torch.randn(10, 10)).shape)  # call: foo

reset(torch._dynamo.reset)


def bar(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:  # a data-dependent branch: Dynamo breaks the graph here
        b = b * -1
    return x * b


opt_bar = torch.compile(bar, backend=counting_backend)
inp1 = torch.ones(10)
inp2 = torch.ones(10)
opt_bar(inp1, inp2)  # call: bar
opt_bar(inp1, -inp2)  # call: bar, other branch

reset(torch.compiler.reset)


class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x):
        return torch.nn.functional.relu(self.lin(x))


opt_mod = torch.compile(MyModule(), backend=counting_backend)
print(opt_mod(torch.randn(10, 100)).shape)  # call: module

# An nn.Sequential is torch's own module: torch.compile runs it through a wrapper frame.
seq = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()), backend=counting_backend)
seq(torch.randn(2, 4))  # call: sequential
write()
