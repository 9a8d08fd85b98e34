"""One body, compiled as several functions, each called with sizes 8, 10, 12 (and an int 2, 3, 4): what each way of
marking a dimension, and each kind of scalar argument, costs in compiles."""

import sys

import torch
from torch._dynamo.decorators import mark_unbacked  # not re-exported as torch._dynamo.mark_unbacked in 2.13

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


def unmarked(x):
    return x.sin() * 2


def marked_dynamic(x):
    return x.sin() * 2


def maybe_marked(x):
    return x.sin() * 2


def marked_static(x):
    return x.sin() * 2


def marked_unbacked(x):
    return x.sin() * 2


def int_factor(x, k):
    return x.sin() * k


def tensor_factor(x, k):
    return x.sin() * k


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
    torch.manual_seed(0)
    sizes = (8, 10, 12)
    marks = {
        "unmarked: static, then automatic dynamic": (unmarked, lambda x: None),
        "mark_dynamic: a symbol from the first call": (marked_dynamic, lambda x: torch._dynamo.mark_dynamic(x, 0)),
        "maybe_mark_dynamic: the same, without the error": (maybe_marked,
                                                            lambda x: torch._dynamo.maybe_mark_dynamic(x, 0)),
        "mark_static: a compile per size": (marked_static, lambda x: torch._dynamo.mark_static(x, 0)),
    }
    total = 0.0
    for name, (fn, mark) in marks.items():
        compiled = torch.compile(fn, backend=backend)
        with region(name):
            for size in sizes:
                x = torch.randn(size)
                mark(x)
                total += compiled(x).sum().item()
    compiled = torch.compile(marked_unbacked, backend=backend)
    with region("mark_unbacked: sizes 1 and 0 too"):
        for size in (1, 0, *sizes):
            x = torch.randn(size)
            mark_unbacked(x, 0)
            total += compiled(x).sum().item()
    compiled = torch.compile(int_factor, backend=backend)
    with region("a Python int: specialised, then symbolic"):
        for k in (2, 3, 4):
            total += compiled(torch.randn(8), k).sum().item()
    compiled = torch.compile(tensor_factor, backend=backend)
    with region("a 0-d tensor: data, never specialised"):
        for k in (2, 3, 4):
            total += compiled(torch.randn(8), torch.tensor(float(k))).sum().item()
    print(f"{total:.4f}")


if __name__ == "__main__":
    main()
