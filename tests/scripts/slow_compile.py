"""Compiles, then waits for its partner runs: ``slow_compile.py FACTOR [MEETING_DIR RUNS]`` stays until RUNS runs
have reached this point (each leaves a file in MEETING_DIR), so concurrent runs are sure to overlap."""
import sys
import time
from pathlib import Path

import torch

torch.compile(lambda x: x * float(sys.argv[1]), backend="aot_eager")(torch.ones(2))
if len(sys.argv) > 3:
    meeting, runs = Path(sys.argv[2]), int(sys.argv[3])
    meeting.mkdir(exist_ok=True)
    (meeting / sys.argv[1]).touch()
    deadline = time.monotonic() + 600
    while len(list(meeting.iterdir())) < runs and time.monotonic() < deadline:
        time.sleep(0.05)
print("done", sys.argv[1], flush=True)
