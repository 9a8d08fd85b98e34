"""A step that prints before any tensor work: the frame breaks at once, so the first graph Inductor compiles (and the
process's one-time setup with it) is in the code after the print."""
import torch


@torch.compile
def step(x: torch.Tensor) -> torch.Tensor:
    print("step")
    return (x.sin() * 2 + x.cos()).relu()


for _ in range(2):
    step(torch.randn(16, 16))
