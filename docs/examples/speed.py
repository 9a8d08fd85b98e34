"""Did compiling pay off? A tiny helper that compiling makes slower, and a block with enough work to fuse."""

# tracers-record: --vs-eager --profile
# (python -m tracers record reads the line above: this example's recording also times each compiled function's
# calls against the same calls run eager, and profiles its kernels by line; chapter 17 shows both.)

import torch

FEATURES = 256
HIDDEN = 512


def scale_shift(x: torch.Tensor) -> torch.Tensor:
    # Three pointwise ops on 8 numbers: microseconds of work, less than a compiled call's fixed cost.
    return (x * 2 + 1).relu()


class Block(torch.nn.Module):
    """LayerNorm, a linear layer up, a tanh-approximated GELU gated by a sigmoid, a linear layer down, a residual."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(FEATURES)
        self.up = torch.nn.Linear(FEATURES, HIDDEN)
        self.down = torch.nn.Linear(HIDDEN, FEATURES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(self.norm(x))
        # Eleven pointwise ops: eleven kernels and passes over memory eager, one loop compiled.
        gelu = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return x + 0.5 * self.down(gelu * torch.sigmoid(h))


def main() -> None:
    torch.manual_seed(0)
    helper = torch.compile(scale_shift)
    block = Block().eval()
    compiled_block = torch.compile(block)
    x = torch.arange(8, dtype=torch.float32)
    batch = torch.randn(64, FEATURES)
    with torch.no_grad():
        for _ in range(500):
            small = helper(x)
        for _ in range(40):
            out = compiled_block(batch)
    print(f"helper {small.sum().item():.1f}, block {out.abs().mean().item():.4f}")


if __name__ == "__main__":
    main()
