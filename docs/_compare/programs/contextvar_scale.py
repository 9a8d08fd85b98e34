"""A scale kept in a ContextVar and read inside the compiled step: torch 2.13.0 breaks the graph at the read,
2.14.1 traces it and guards on its value (pytorch/pytorch#186965), so a new value recompiles the step itself."""

import contextvars

import torch

SCALE = contextvars.ContextVar("scale", default=1.0)


def step(x):
    y = torch.sin(x) * SCALE.get()  # 2.13.0: a graph break here; 2.14.1: a guard on the value
    return y.relu() + 1


compiled = torch.compile(step, backend="aot_eager")
x = torch.randn(256)
for scale in (1.0, 1.0, 2.0, 2.0, 3.0):  # two new values: two recompiles, of different code under each release
    token = SCALE.set(scale)
    compiled(x)
    SCALE.reset(token)
print("ran with torch", torch.__version__)
