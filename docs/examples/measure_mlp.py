"""An MLP whose blocks are mostly pointwise work: many small kernels in eager that Inductor fuses into a few."""

import torch

FEATURES = 256
HIDDEN = 512
BLOCKS = 2


class Block(torch.nn.Module):
    """LayerNorm, a linear layer up, a tanh-approximated GELU gated by a sigmoid, a linear layer down, a residual."""

    def __init__(self, features: int, hidden: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(features)
        self.up = torch.nn.Linear(features, hidden)
        self.down = torch.nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(self.norm(x))
        # Eleven pointwise ops, each its own kernel (and its own pass over memory) in eager; one loop compiled.
        gelu = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return x + 0.5 * self.down(gelu * torch.sigmoid(h))


def build(batch_size: int) -> tuple[torch.nn.Module, tuple[torch.Tensor]]:
    """What `python -m tracers measure` calls: the model (inference only) and one input on torch's default device."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(FEATURES, HIDDEN) for _ in range(BLOCKS)])
    model.eval().requires_grad_(False)  # inference: no autograd graph, AOTAutograd compiles a forward only
    return model, (torch.randn(batch_size, FEATURES),)


def main() -> None:
    model, args = build(8)
    compiled = torch.compile(model)
    out = compiled(*args)
    again = compiled(*args)  # a second call runs the compiled code without compiling
    torch.testing.assert_close(out, model(*args), rtol=1e-4, atol=1e-4)
    print(f"out {tuple(out.shape)}  sum {again.sum().item():.4f}")


if __name__ == "__main__":
    main()
