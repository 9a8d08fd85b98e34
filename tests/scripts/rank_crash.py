"""Two ranks compile a step; rank 1 then fails with its own error while rank 0 is still busy, until torchrun stops it."""
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
step = torch.compile(lambda x: torch.relu(x) + 1, backend="eager")
step(torch.randn(4))
dist.barrier()  # both ranks have compiled before rank 1 fails, whatever the scheduling
if dist.get_rank() == 1:
    raise RuntimeError("rank 1's own failure")
time.sleep(120)  # a long step: torchrun ends it with SIGTERM once rank 1 has failed
