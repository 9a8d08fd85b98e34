"""A global counter read inside a compiled function, and a print: recompiles and a graph break."""
import torch

calls = 0


def step(x):
    global calls
    calls += 1
    y = torch.sin(x) * calls
    print("step", calls)
    return y.relu()


compiled = torch.compile(step, backend="aot_eager")
for _ in range(4):
    compiled(torch.randn(32))
