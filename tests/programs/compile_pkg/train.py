"""Entry point run as a module: reports how it was started, compiles, and exits with --exit-code."""

import argparse
import sys

import torch

from ground_truth import counting_backend, write

from .layers import block

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=1)
parser.add_argument("--exit-code", type=int, default=0)
args = parser.parse_args()
print(f"started as {__name__} from {sys.argv[0]} with {sys.argv[1:]}")
step = torch.compile(block, backend=counting_backend)
for _ in range(args.steps):
    step(torch.randn(4))  # call: step
write()
sys.exit(args.exit_code)
