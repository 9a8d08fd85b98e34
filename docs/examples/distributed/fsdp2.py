"""FSDP2 (fully_shard) + torch.compile: parameters are sharded across ranks and gathered around each layer.

Run it on two ranks: ``torchrun --nproc-per-node 2 fsdp2.py [backend]`` (gloo on CPU, NCCL on GPUs)."""

import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard


class Block(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc = torch.nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x)) + x


class Model(torch.nn.Module):
    def __init__(self, width: int = 64, depth: int = 2):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = Model().to(device)
    # Each block is its own FSDP unit: its parameters are all-gathered before its forward and its
    # gradients reduce-scattered after its backward; the root holds what is left.
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    compiled = torch.compile(model, backend=backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.manual_seed(1 + rank)
    for _ in range(2):
        optimizer.zero_grad(set_to_none=True)
        loss = compiled(torch.randn(8, 64, device=device)).pow(2).mean()
        loss.backward()
        optimizer.step()
    print(f"rank {rank}: loss {loss.item():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
