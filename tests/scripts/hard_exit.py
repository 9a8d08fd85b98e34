"""Compiles once, then leaves with os._exit (no cleanup, no atexit, no finally) with the status given."""
import os
import sys

import torch

compiled = torch.compile(lambda x: x.sin() + 1, backend="eager")
compiled(torch.ones(3))
print("compiled", flush=True)  # os._exit does not flush: the script flushes what it wants seen
try:
    os._exit(int(sys.argv[1]))
finally:
    print("finally ran")  # never: os._exit skips it, with or without the tracer
