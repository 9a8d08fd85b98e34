"""Deep mode's cost: cold compile time and trace size of the MLP example with --deep, against the plain tracer.

Paired fresh processes (plain tracer, tracer with --deep), alternating which goes first; medians and
the median of per-pair ratios. Usage:

    python benchmarks/deep_mode.py [--pairs 5] [--min-us 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "mlp.py"


def _compile_seconds(trace_file: Path) -> float:
    """The frame compile plus the lazy backward compile, as the trace itself measured them."""
    from tracers.analysis.trace_facts import analyze
    from tracers.tracefile.chrome import load

    facts = analyze(load(trace_file))
    return sum(compile.time_ns for compile in facts.compiles) / 1e9


def _run(deep: bool, min_us: float, out: Path) -> tuple[float, int]:
    options = ["--deep", "--deep-min-us", str(min_us)] if deep else []
    command = [sys.executable, "-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(out), *options,
               str(EXAMPLE)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        sys.exit(f"traced run failed:\n{result.stderr[-2000:]}")
    trace_file = out / "mlp-cpu-cold.json"
    return _compile_seconds(trace_file), trace_file.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--min-us", type=float, default=100.0)
    options = parser.parse_args()

    plain_s, deep_s, deep_sizes = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for pair in range(options.pairs):
            order = (False, True) if pair % 2 == 0 else (True, False)
            for deep in order:
                seconds, size = _run(deep, options.min_us, Path(scratch) / f"{pair}-{deep}")
                (deep_s if deep else plain_s).append(seconds)
                if deep:
                    deep_sizes.append(size)
            print(f"pair {pair + 1}/{options.pairs}: compile {plain_s[-1]:.2f} s, with --deep {deep_s[-1]:.2f} s, "
                  f"{deep_sizes[-1] / 1e6:.1f} MB", file=sys.stderr)
    ratio = statistics.median(d / p for p, d in zip(plain_s, deep_s))
    size_mb = statistics.median(deep_sizes) / 1e6
    lines = [
        f"## Deep mode (MLP example, Inductor, CPU, cold, calls ≥ {options.min_us:g} µs)",
        "",
        f"{options.pairs} pairs of fresh processes, the tracer alone and with `--deep`, alternating which goes first. "
        "Compile time is what the trace itself measured for the frame compile and the lazy backward compile.",
        "",
        "| measure | tracer | tracer + deep | ratio (median of pairs) | target |",
        "|---|---|---|---|---|",
        f"| compile time | {statistics.median(plain_s):.2f} s | {statistics.median(deep_s):.2f} s | {ratio:.2f}× | ≤ 1.5× |",
        f"| trace file | | {size_mb:.1f} MB | | ≤ 50 MB |",
        "",
    ]
    publish("deep-mode", lines, f"python benchmarks/deep_mode.py --pairs {options.pairs} --min-us {options.min_us:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
