"""Dynamic shapes: a size change makes Dynamo recompile with symbolic sizes, guards on size expressions, duck sizing."""

import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


def mirror_with_tail(a: torch.Tensor, tail: torch.Tensor) -> torch.Tensor:
    x = torch.cat([a, a.flip(0), tail])  # length 2*len(a) + len(tail)
    if x.size(0) >= 16:  # a branch on a size: with symbolic sizes, a guard on 2*s_a + s_tail
        return x.cumsum(0)
    return x * 2


def pair_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    x = torch.cat([a, b])  # equal sizes share one symbol (duck sizing): length 2*s
    if x.size(0) >= 16:
        return x.cumsum(0)
    return x * 2


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"  # shapes are Dynamo's business
    torch.manual_seed(0)
    mirror = torch.compile(mirror_with_tail, backend=backend)  # default: static first, dynamic on change
    with region("static first call"):
        first = mirror(torch.randn(8), torch.randn(3))
    with region("new sizes: recompile"):
        second = mirror(torch.randn(10), torch.randn(5))  # size mismatch: recompiled with symbolic sizes
    with region("more sizes: no recompile"):
        third = mirror(torch.randn(12), torch.randn(7))
        fourth = mirror(torch.randn(4), torch.randn(9))  # 2*4 + 9 >= 16: the same branch, same code
    pairs = torch.compile(pair_sum, backend=backend, dynamic=True)  # symbolic from the first call
    with region("dynamic=True: equal sizes"):
        fifth = pairs(torch.randn(6), torch.randn(6))  # one symbol for both sizes
    with region("dynamic=True: unequal sizes"):
        sixth = pairs(torch.randn(6), torch.randn(7))  # the duck-sizing guard fails: recompile
    results = (first, second, third, fourth, fifth, sixth)
    print(" ".join(f"{tuple(r.shape)[0]}:{r.sum().item():.4f}" for r in results))


if __name__ == "__main__":
    main()
