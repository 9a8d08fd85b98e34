"""Tracer overhead per rank: the DDP example on 2 CPU ranks (gloo) under torchrun, with and without the tracer.

Runs are paired and alternate which goes first; each is a fresh torchrun with a fresh cold cache dir.
Measured: wall time of the whole launch, and CPU time of the ranks (and torchrun) from the OS's
accounting of reaped children, per rank. The report gives medians and the median of per-pair ratios;
the same launch with one rank is the single-process reference the per-rank ratio is held to. Usage:

    python benchmarks/rank_overhead.py [--pairs 5] [--nproc 2] [--backend aot_eager]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "distributed" / "ddp.py"


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(traced: bool, nproc: int, backend: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of torchrun and its ranks) of one launch."""
    with tempfile.TemporaryDirectory(prefix="bench-ranks-") as scratch:
        tracer = ["-m", "tracers", "trace", "--quiet", "--no-page", "--out", scratch] if traced else []
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
                   *tracer, str(EXAMPLE), backend]
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "TORCHINDUCTOR_CACHE_DIR": scratch,
                       "TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
        cpu_before, started = _children_cpu_s(), time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - started, _children_cpu_s() - cpu_before
        if result.returncode != 0:
            sys.exit(f"benchmark run failed ({'traced' if traced else 'plain'}):\n{result.stderr[-2000:]}")
        if traced and len(list(Path(scratch).glob("ddp-*-rank*.json"))) != nproc:
            sys.exit("benchmark run wrote no trace per rank")
    return wall, cpu


def _paired(values: dict[str, list[float]]) -> tuple[float, float, float]:
    plain, traced = values["plain"], values["traced"]
    return statistics.median(plain), statistics.median(traced), statistics.median(t / p for p, t in zip(plain, traced))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="pairs of launches (default 5)")
    parser.add_argument("--nproc", type=int, default=2, help="ranks per launch (default 2)")
    parser.add_argument("--backend", default="aot_eager",
                        help="the example's torch.compile backend (default aot_eager: no C++ compile, whose "
                             "g++ children would swamp the tracer's share on 2 cores)")
    options = parser.parse_args()

    rows = []
    # One rank under the same launcher is the single-process reference: the target is that the ratio
    # per rank stays the same with more ranks (the tracer does nothing per peer).
    for nproc in (1, options.nproc):
        walls: dict[str, list[float]] = {"plain": [], "traced": []}
        cpus: dict[str, list[float]] = {"plain": [], "traced": []}
        for pair in range(options.pairs):
            order = ("plain", "traced") if pair % 2 == 0 else ("traced", "plain")
            for mode in order:
                wall, cpu = run_once(mode == "traced", nproc, options.backend)
                walls[mode].append(wall)
                cpus[mode].append(cpu / nproc)
            print(f"{nproc} rank(s), pair {pair + 1}/{options.pairs}: {walls['plain'][-1]:.2f} s plain, "
                  f"{walls['traced'][-1]:.2f} s traced (CPU per rank {cpus['plain'][-1]:.2f} s, "
                  f"{cpus['traced'][-1]:.2f} s)", file=sys.stderr)
        wall_plain, wall_traced, wall_ratio = _paired(walls)
        cpu_plain, cpu_traced, cpu_ratio = _paired(cpus)
        rows.append(f"| {nproc} | {wall_plain:.2f} s | {wall_traced:.2f} s | {wall_ratio:.3f}× | {cpu_plain:.2f} s | "
                    f"{cpu_traced:.2f} s | {cpu_ratio:.3f}× |")
    lines = [
        f"## Tracer overhead per rank (DDP example, {options.backend}, CPU ranks, gloo)",
        "",
        f"- {options.pairs} pairs of torchrun launches of `docs/examples/distributed/ddp.py` per world size (plain "
        "and under `-m tracers trace`, alternating which goes first), each with a fresh cache dir and the compile "
        "caches off; three training steps, the first compiling. One rank is the single-process reference.",
        "- CPU time is the OS's account of torchrun and its ranks (user + system), divided by the number of ranks; "
        "it includes each traced rank's import of the tracer and the writing of its trace.",
        "- Target: the per-rank ratio with several ranks equals the single-process one.",
        "",
        "| ranks | wall plain | wall traced | wall ratio | CPU per rank plain | CPU per rank traced | CPU ratio |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Wall times swing by seconds on this shared 2-core machine (several ranks compete for two cores); the CPU "
        "time per rank is the steadier measure.",
        "",
    ]
    publish("rank-overhead", lines,
            f"python benchmarks/rank_overhead.py --pairs {options.pairs} --nproc {options.nproc} --backend {options.backend}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
