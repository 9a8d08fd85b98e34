"""Compiles, then waits: long enough for a second run of the same script to overlap it."""
import sys
import time

import torch

torch.compile(lambda x: x * float(sys.argv[1]), backend="aot_eager")(torch.ones(2))
time.sleep(float(sys.argv[2]))
print("done", sys.argv[1], flush=True)
