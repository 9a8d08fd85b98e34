"""Eight gloo ranks feed one compiled step; rank 5 alone feeds a shorter last batch (5 rows, not 8), so only rank 5
recompiles: the divergence is one rank of eight, the other seven agree."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
layer = torch.nn.Linear(4, 4)


@torch.compile(backend="aot_eager")
def step(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(layer(x)).sum()


for size in (8, 8, 5 if rank == 5 else 8):
    loss = step(torch.randn(size, 4))
dist.all_reduce(loss.detach())
dist.destroy_process_group()
