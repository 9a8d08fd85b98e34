"""A subprocess running Python that compiles, then ends with sys.exit(3)."""
import subprocess
import sys

CHILD = ("import sys, torch; torch.compile(lambda x: x.cos().sum(), backend='aot_eager')(torch.zeros(2)); "
         "sys.exit(3)")

result = subprocess.run([sys.executable, "-c", CHILD])
print("child exit", result.returncode, flush=True)
