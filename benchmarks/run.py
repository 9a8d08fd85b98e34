"""Run every benchmark in turn (what `nox -s bench` does); each updates its own section of RESULTS.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = [
    [str(HERE / "tracer_overhead.py")],
    [str(HERE / "calls_served.py")],
    [str(HERE / "speed.py")],
    [str(HERE / "timer_cost.py")],
    [str(HERE / "vs_eager_apart.py")],
    [str(HERE / "page_scale.py")],
    [str(HERE / "deep_mode.py")],
    [str(HERE / "by_code.py")],
    [str(HERE / "rank_overhead.py")],
    [str(HERE / "torch_logs.py")],
    [str(HERE / "torch_logs_scale.py")],
    [str(HERE / "tlparse_speed.py")],
    [str(HERE / "verify_speed.py"), "2.15.0"],
    [str(HERE / "docs_build.py")],
    [str(HERE / "release_build.py")],
    [str(HERE / "wheel_size.py")],
    [str(HERE / "compare_speed.py"), "2.14.1"],
]


def main() -> int:
    for command in BENCHMARKS:
        print(f"== {Path(command[0]).name} {' '.join(command[1:])}", file=sys.stderr, flush=True)
        status = subprocess.run([sys.executable, *command, *sys.argv[1:]]).returncode
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
