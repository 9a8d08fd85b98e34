"""Guards at work: calls that reuse compiled code, three that fail a guard and recompile, and a hit recompile limit."""

import torch


def scale(x: torch.Tensor, factor: int) -> torch.Tensor:
    return torch.tanh(x) * factor


def main() -> None:
    torch.manual_seed(0)
    # recompile_limit=3 (a torch.compile argument since 2.12) keeps the example short; the default is 8
    compiled = torch.compile(scale, backend="aot_eager", recompile_limit=3)
    x = torch.randn(8)
    compiled(x, 2)                    # 0/0: first call, compile with static shapes
    compiled(torch.randn(8), 2)       # same size, dtype and factor: the guards pass, no compile
    compiled(torch.randn(16), 2)      # size 8 -> 16: a guard fails, 0/1 compiles with a dynamic size
    compiled(torch.randn(32), 2)      # any size passes the new guards now: no compile
    compiled(x.double(), 2)           # float32 -> float64: a guard fails, 0/2
    out = compiled(x, 3)              # factor 2 -> 3: a fourth version would exceed the limit: runs eagerly
    print(f"{out.sum().item():.6f}")


if __name__ == "__main__":
    main()
