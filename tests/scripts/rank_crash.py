"""Two ranks compile a step; rank 1 then fails with its own error while rank 0 waits for it in a barrier."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
step = torch.compile(lambda x: torch.relu(x) + 1, backend="eager")
step(torch.randn(4))
if dist.get_rank() == 1:
    raise RuntimeError("rank 1's own failure")
dist.barrier()  # rank 0 waits here until torchrun stops it
