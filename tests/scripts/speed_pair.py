"""Two runs of one script for the runtime diff: a tiny helper (aot_eager: per-call overhead, no C++ compile) and a
small matmul with a fused tail (Inductor: --profile ties its kernels to lines). Run with ``b``, a third function is
compiled and called too, after the others, so their torch.compile lines stay where they are."""

import sys

import torch

VARIANT = sys.argv[1] if len(sys.argv) > 1 else "a"


def scale_shift(x):
    return (x * 2 + 1).relu()


def block(x, w):
    y = x @ w
    return (y.sin() * 2 + 1).relu()


def only_in_b(x):
    return x.cos() + 1


helper = torch.compile(scale_shift, backend="aot_eager")
fused = torch.compile(block)
x = torch.arange(8, dtype=torch.float32)
inputs, weight = torch.randn(32, 64), torch.randn(64, 64)
total = 0.0
for step in range(200):
    total += float(helper(x)[3])
for step in range(20):
    total += float(fused(inputs, weight)[0, 0])
if VARIANT == "b":
    extra = torch.compile(only_in_b, backend="aot_eager")
    for step in range(20):
        total += float(extra(x)[1])
print(f"total {total:.3f}")
