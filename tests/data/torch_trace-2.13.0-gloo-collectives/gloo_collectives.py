"""Two gloo ranks whose compiled graphs hold different collectives, in a job that completes: rank 1 compiles a second
all_reduce into its graph, rank 0 makes the same all_reduce eagerly after each call, so the ranks stay in step. The
step breaks its graph once (the code after the break is compiled as a resume function).

    TORCH_TRACE=logs torchrun --nproc-per-node 2 gloo_collectives.py
"""

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


@torch.compile(backend="aot_eager")
def step(x):
    y = torch.relu(x @ x.T)
    dist.all_reduce(y)
    z = y.sum(dim=0)
    if rank == 1:
        dist.all_reduce(z)
    torch._dynamo.graph_break()
    return y, z * 2


torch.manual_seed(0)
for _ in range(3):
    y, z = step(torch.randn(16, 16))
    if rank == 0:
        dist.all_reduce(z, op=dist.ReduceOp.SUM)
        z = z * 2
print(f"rank {rank}: z sums to {float(z.sum()):.4f}", flush=True)
dist.destroy_process_group()
