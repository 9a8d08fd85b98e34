"""A small elementwise helper compiled "for speed" and called thousands of times on 8-element tensors: per-call
overhead dominates (aot_eager runs the same aten ops eager does, plus guards and wrappers), and a module compiled
with ``module.compile()``. Exits 3 so the exit status can be compared."""

import sys

import torch

CALLS = 2000


def scale_shift(x):
    return (x * 2 + 1).relu()


class Affine(torch.nn.Module):
    def forward(self, x):
        return x * 3 - 1


fast = torch.compile(scale_shift, backend="aot_eager")
module = Affine()
module.compile(backend="aot_eager")
x = torch.arange(8, dtype=torch.float32)
total = 0.0
for step in range(CALLS):
    total += float(fast(x)[3])
    if step % 10 == 0:
        total += float(module(x)[2])
print(f"total {total}")
sys.exit(3)
