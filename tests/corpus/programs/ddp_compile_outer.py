"""DDP on 2 gloo ranks started with torch.multiprocessing.spawn: torch.compile(DDP(model)), uneven shards."""
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

WORLD = 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def worker(rank, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(WORLD))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    torch.manual_seed(0)
    model = torch.compile(DDP(Net()), backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randn(11, 16)  # 11 samples over 2 ranks: 6 and 5, in batches of 4
    shard = data[rank::WORLD]
    for start in range(0, len(shard), 4):
        x = shard[start:start + 4]
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    dist.destroy_process_group()


def main():
    port = 29500 + os.getpid() % 1000
    mp.spawn(worker, args=(port,), nprocs=WORLD)


if __name__ == "__main__":
    main()
