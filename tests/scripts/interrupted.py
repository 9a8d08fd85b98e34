"""Sends itself a signal from inside a backend, i.e. in the middle of a compile (like Ctrl-C would)."""
import os
import signal
import sys

import torch

SIGNAL = getattr(signal, sys.argv[1] if len(sys.argv) > 1 else "SIGINT")


def backend(graph_module, example_inputs):
    os.kill(os.getpid(), SIGNAL)
    return graph_module.forward


def f(x):
    return torch.sin(x) + 1


print("before compile", flush=True)
torch.compile(f, backend=backend)(torch.randn(4))
print("never printed")
