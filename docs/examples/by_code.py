"""A small transformer-like model: which of its functions cost Dynamo's tracing, which lines became which kernel."""

import sys

import torch


class Attention(torch.nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.out = torch.nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, width // self.heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / (width // self.heads) ** 0.5
        mixed = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v)
        return self.out(mixed.reshape(batch, length, width))


class Block(torch.nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(width)
        self.attention = Attention(width, heads)
        self.norm2 = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


class Model(torch.nn.Module):
    def __init__(self, width: int = 32, heads: int = 4, depth: int = 3):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(width, heads) for _ in range(depth))
        self.head = torch.nn.Linear(width, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x).mean(dim=1)


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"  # aot_eager: Dynamo's part only, no kernels
    torch.manual_seed(0)
    model = Model().eval()
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        out = compiled(torch.randn(2, 16, 32))
    print(f"output {tuple(out.shape)} sum {out.sum().item():.6f}")


if __name__ == "__main__":
    main()
