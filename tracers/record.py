"""`python -m tracers record`: re-record the site's example traces, one fresh process per example."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

EXAMPLES_DIR = Path("docs/examples")
TRACES_DIR = Path("docs/_traces")


def public_version(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: traces are filed by release, not by build."""
    return version.split("+", 1)[0]


def record(examples: list[str], device: str, out_root: Path = TRACES_DIR) -> int:
    if not examples:
        examples = [str(path) for path in sorted(EXAMPLES_DIR.glob("*.py"))]
    if not examples:
        print(f"record: no examples found in {EXAMPLES_DIR}/", file=sys.stderr)
        return 2
    import torch  # only now: the checks above must answer fast and without torch's import noise

    out_dir = out_root / device / public_version(torch.__version__)
    print(f"Recording {len(examples)} example(s) with torch {torch.__version__} on {device} into {out_dir}/",
          file=sys.stderr)
    failures = 0
    for index, example in enumerate(examples, 1):
        print(f"[{index}/{len(examples)}] {example} …", end="", file=sys.stderr, flush=True)
        started = time.monotonic()
        command = [sys.executable, "-m", "tracers", "trace", "--quiet", "--cache", "cold",
                   "--device", device, "--out", str(out_dir), example]
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.monotonic() - started
        if result.returncode == 0:
            print(f" ok ({elapsed:.1f} s)", file=sys.stderr)
        else:
            failures += 1
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            print(f" failed with exit {result.returncode} ({elapsed:.1f} s): {last}", file=sys.stderr)
    return 1 if failures else 0
