"""DDP + torch.compile: DDPOptimizer splits the compiled forward at DDP's gradient-bucket boundaries.

Run it on two ranks: ``torchrun --nproc-per-node 2 ddp.py [backend]`` (gloo on CPU, NCCL on GPUs), or
under the tracer with ``python -m tracers trace --nproc 2 ddp.py``."""

import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Tower(torch.nn.Module):
    """Four layers of 1 MiB of weights each: with a 1 MiB bucket cap, DDP makes a bucket per layer or two."""

    def __init__(self, width: int = 512, depth: int = 4):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"  # e.g. aot_eager to skip code generation
    cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)  # the same initial weights on every rank (DDP also broadcasts rank 0's)
    # A 1 MiB bucket cap (DDP's default is 25) gives several buckets, so DDPOptimizer has boundaries
    # to split at (torch._dynamo.config.optimize_ddp is on by default). Not smaller: DDP's first bucket
    # is always 1 MiB, and DDPOptimizer requires it to be no larger than the others.
    model = DDP(Tower().to(device), bucket_cap_mb=1)
    compiled = torch.compile(model, backend=backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.manual_seed(1 + rank)  # each rank trains on its own data, as a sampler would give it
    for _ in range(3):
        optimizer.zero_grad(set_to_none=True)
        loss = compiled(torch.randn(16, 512, device=device)).pow(2).mean()
        loss.backward()  # DDP's reducer all-reduces each bucket's gradients as they become ready
        optimizer.step()
    checksum = sum(p.detach().sum() for p in model.parameters())
    print(f"rank {rank}: loss {loss.item():.6f} weights checksum {checksum.item():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
