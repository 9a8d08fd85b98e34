"""DDP over a torch.nn.Sequential, then torch.compile, in one gloo process: DDP's forward breaks the graph and
nothing is ever compiled. ``inner`` compiles the module DDP wraps instead (the fix the findings give)."""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

store = tempfile.NamedTemporaryFile(prefix="ddp-store-", delete=False).name  # a file rendezvous: no port to clash
dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
layers = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
if sys.argv[1:] == ["inner"]:
    model = DDP(torch.compile(layers, backend="aot_eager"))
else:
    model = torch.compile(DDP(layers), backend="aot_eager")
for _ in range(3):
    model(torch.randn(8, 16)).sum().backward()
dist.destroy_process_group()
os.remove(store)
