"""DDP over a compiled module, run with torchrun --nproc-per-node 2 on gloo: DDP(torch.compile(model)), uneven shards."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    model = DDP(torch.compile(net, backend="aot_eager"))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randn(11, 16)
    shard = data[rank::world]  # rank 0: 6 samples, rank 1: 5
    for start in range(0, len(shard), 4):
        x = shard[start:start + 4]
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    if int(os.environ.get("LOCAL_RANK", 0)) == 0:
        print("done", loss.item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
