"""A subprocess running Python that compiles; the parent compiles too."""
import subprocess
import sys

import torch

CHILD = "import torch; print('child', float(torch.compile(lambda x: x.cos().sum(), backend='aot_eager')(torch.zeros(2))))"

torch.compile(lambda x: x + 1, backend="aot_eager")(torch.ones(2))
result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
print(result.stdout.strip(), "exit", result.returncode, flush=True)
