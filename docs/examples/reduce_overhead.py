"""mode="reduce-overhead": Inductor plus CUDA graphs, which record the kernels once and replay them."""

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


def step(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.relu(x @ w + 1.0).sum(dim=1)


def accumulate(total: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    # Changes its input in place: a recorded graph would write into memory it does not own, so
    # reduce-overhead runs this one without CUDA graphs (and says why).
    total.add_(x.sum(dim=0))
    return total


def main() -> None:
    torch.manual_seed(0)
    compiled = torch.compile(step, mode="reduce-overhead")
    w = torch.randn(64, 64)
    # CUDA graph trees run a new graph eagerly once (warm-up), record it on the next call, and
    # replay the recording from then on.
    for call in range(1, 4):
        with region(f"step, call {call}"):
            out = compiled(torch.randn(16, 64), w)
    print(f"step {out.sum().item():.4f}  on {out.device}")

    add_into = torch.compile(accumulate, mode="reduce-overhead")
    total = torch.zeros(64)
    for call in range(1, 3):
        with region(f"accumulate, call {call}"):
            add_into(total, torch.randn(16, 64))
    print(f"accumulate {total.sum().item():.4f}")


if __name__ == "__main__":
    main()
