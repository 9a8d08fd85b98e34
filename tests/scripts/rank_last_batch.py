"""DDP over a compiled model on two gloo ranks where rank 1 alone gets a shorter last batch: it recompiles, rank 0 not."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(torch.compile(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)),
                          backend="aot_eager"))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for size in ((4, 4, 4) if rank == 0 else (4, 4, 3)):
    loss = model(torch.randn(size, 16)).pow(2).mean()
    loss.backward()  # DDP's all-reduce: rank 0 waits here while rank 1 compiles its third step
    optimizer.step()
    optimizer.zero_grad()
dist.destroy_process_group()
