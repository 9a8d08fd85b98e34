"""FSDP2 (fully_shard) on 2 gloo ranks under torchrun, each block sharded, the model compiled."""
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(Block(), Block(), nn.Linear(16, 4))
    for block in model[:2]:
        fully_shard(block)
    fully_shard(model)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    if rank == 0:
        print("done", loss.item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
