"""Three graph breaks that Dynamo does not resume from with a generated function."""

import sys

import torch


def in_loop(x):
    for i in range(2):
        x = torch.sin(x) + i
        print("step", i)  # a break inside a loop: the whole frame runs eagerly
    return x


def in_try(x):
    y = torch.cos(x) * 2
    try:
        z = y + 1
        print("inside try")  # a break inside a try block: no resume function
        z = z * 3
    except RuntimeError:
        z = y
    return z.sum()


@torch.compiler.disable
def logged(t):
    print("disabled helper")
    return t


def calls_disabled(x):
    y = torch.tanh(x)
    y = logged(y)  # a disabled function: a graph break at the call, then a resume function
    return y * 2


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    x = torch.randn(8)
    for fn in (in_loop, in_try, calls_disabled):
        compiled = torch.compile(fn, backend=backend)
        compiled(x)
        compiled(x)
