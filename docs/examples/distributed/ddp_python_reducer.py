"""DDP + torch.compile with compiled autograd: DDP's Python reducer, whose all-reduces land in the backward graph.

Run it on two ranks: ``torchrun --nproc-per-node 2 ddp_python_reducer.py [backend]`` (gloo on CPU, NCCL on GPUs)."""

import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Tower(torch.nn.Module):
    def __init__(self, width: int = 512, depth: int = 4):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    # Both switches before DDP wraps the model: DDP reads the mode once, in its constructor, and
    # torch.compile reads compiled_autograd when it wraps the step.
    torch._dynamo.config.optimize_ddp = "python_reducer"
    torch._dynamo.config.compiled_autograd = True
    cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = DDP(Tower().to(device), bucket_cap_mb=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile(backend=backend)
    def train_step(x: torch.Tensor) -> torch.Tensor:
        loss = model(x).pow(2).mean()
        loss.backward()  # captured by compiled autograd, the reducer's all-reduces with it
        return loss

    torch.manual_seed(1 + rank)
    for _ in range(3):
        optimizer.zero_grad(set_to_none=True)
        loss = train_step(torch.randn(16, 512, device=device))
        optimizer.step()
    checksum = sum(p.detach().sum() for p in model.parameters())
    print(f"rank {rank}: loss {loss.item():.6f} weights checksum {checksum.item():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
