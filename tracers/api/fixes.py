"""``tracers.check_fixes(script)``: a script traced with ``trace --check-fixes`` from Python, its result read back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tracers.tracefile.names import TraceName, run_name

from .loaded import load
from .result import TraceResult


class CheckFixesFailed(RuntimeError):
    """The traced run left no trace to read (the message says what the command printed last)."""


def check_fixes(script: str | Path, *args: str, out: str | Path = "traces", cache: str = "cold",
                device: str = "cpu", module: bool = False) -> TraceResult:
    """Trace ``script`` (with its ``args``) and check each fix the tracer can apply by running the script again with
    it, in fresh processes (the script runs 1 + fixes times; it must be one that can run again). The result's
    ``fix_checks`` and each finding's ``remedies`` hold what each fix did. The script's own exit status is the
    result's ``trace.info.exit_code``."""
    command = [sys.executable, "-m", "tracers", "trace", "--check-fixes", "--quiet", "--out", str(out),
               "--cache", cache, "--device", device, *(["-m"] if module else []), str(script), *args]
    done = subprocess.run(command, capture_output=True, text=True, errors="replace")
    path = Path(out) / TraceName(run_name(str(script), module), device, cache).file_name
    if not path.is_file():
        last = (done.stderr.strip().splitlines() or ["(nothing)"])[-1]
        raise CheckFixesFailed(f"{script}: no trace was written (exit {done.returncode}): {last}")
    return load(path)
