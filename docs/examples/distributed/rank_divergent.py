"""Ranks that compile different graphs: rank 1's last batch is shorter, so only rank 1 recompiles.

The compiled step ends in an all-reduce (a functional collective, so it is inside the graph). While
rank 1 recompiles, rank 0 already waits in that all-reduce; with NCCL a long enough compile, or a
recompiled graph whose collectives differ, is how a job hangs. Here the collective is the same on
both ranks, so they meet again and the program finishes; the tracer shows where they parted."""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "inductor"
    cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if cuda else "gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    layer = torch.nn.Linear(32, 32).to(device)

    @torch.compile(backend=backend)
    def step(x: torch.Tensor) -> torch.Tensor:
        loss = torch.tanh(layer(x)).sum()
        return funcol.all_reduce(loss, "sum", dist.group.WORLD)  # every rank's loss, summed

    # Rank 1 holds the remainder of the data set: its third batch has 5 rows instead of 8.
    sizes = [8, 8, 5 if rank == 1 else 8]
    for size in sizes:
        loss = step(torch.randn(size, 32, device=device))
    print(f"rank {rank}: summed loss {loss.item():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
