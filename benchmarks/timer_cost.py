"""The per-call timer's own cost (``--vs-eager``, ``--profile``): a small function called plain and through the
timing wrapper, with grad off, with grad on and no backward, and with grad on and a backward after each call.

One process; in each round the plain and the wrapped function are called in turn, call by call (which goes first
alternating between rounds), each call timed on its own; a round's cost is the median wrapped call less the median
plain call, so a pause of the machine's lands on one call of either side, not on a batch. The report gives the
median round. Two functions: an eager 3-node forward (as in the eager run: its backward is timed by the nodes its
forward made) and the same compiled with ``aot_eager`` (one ``CompiledFunctionBackward`` node). Prints a markdown
section (``--out FILE`` writes it there too). Usage:

    python benchmarks/timer_cost.py [--rounds 15] [--calls 1000] [--out FILE] [--tracers DIR]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import machine_line  # noqa: E402


def _forward(x):
    return (x * 2 + 1).sin()  # three autograd nodes with grad on


def _wrapped(function: Callable, mode: str, torch) -> Callable:
    """``function`` behind the wrapper ``torch.compile`` returns while the timer is installed (its ``_timed``), as the
    run of this mode ("compiled": the traced run; "eager": the run with compile off) makes it."""
    from tracers.capture.speed import CallTimer, _Calls

    timer = CallTimer(mode)
    timer._torch = torch
    calls = _Calls("timer_cost.py:1", 0, function.__name__)
    calls.cuda = False  # the host's part, even where CUDA is in use (its events cost the same with either version)
    return timer._timed(function, calls)


MODES = {"off": "off: forward", "forward": "on: forward only (no backward)", "backward": "on: forward + backward"}


def _round(first: Callable, second: Callable, x, calls: int, mode: str, torch) -> tuple[list[int], list[int]]:
    """Each call's nanoseconds (with its backward in mode "backward"), the two functions called in turn."""
    clock = time.perf_counter_ns
    times: tuple[list[int], list[int]] = ([], [])
    with torch.set_grad_enabled(mode != "off"):
        for _ in range(calls):
            for function, got in ((first, times[0]), (second, times[1])):
                started = clock()
                out = function(x)
                if mode == "backward":
                    out.sum().backward()
                got.append(clock() - started)
    return times


@dataclass(frozen=True)
class Cost:
    """Nanoseconds: the plain call's median, and the wrapper's cost per call (the median round, the lowest, highest)."""

    plain: float
    median: float
    low: float
    high: float


def measure(plain: Callable, run: str, rounds: int, calls: int, mode: str, torch) -> Cost:
    """The wrapper's cost on ``plain`` in ``mode`` (see MODES), timed as the ``run`` ("compiled", "eager") wraps it."""
    wrapped = _wrapped(plain, run, torch)
    x = torch.randn(16, requires_grad=True)
    _round(plain, wrapped, x, 50, mode, torch)  # warm-up: a compiled function compiles here
    plain_ns, costs = [], []
    for number in range(rounds):
        gc.collect()
        if number % 2 == 0:
            plain_times, wrapped_times = _round(plain, wrapped, x, calls, mode, torch)
        else:
            wrapped_times, plain_times = _round(wrapped, plain, x, calls, mode, torch)
        plain_ns.append(statistics.median(plain_times))
        costs.append(statistics.median(wrapped_times) - plain_ns[-1])
    return Cost(statistics.median(plain_ns), statistics.median(costs), min(costs), max(costs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--tracers", type=Path, default=None,
                        help="a folder holding another version's tracers package, measured instead of this one's")
    args = parser.parse_args(argv)
    if args.tracers is not None:
        sys.path.insert(0, str(args.tracers.resolve()))
    import torch

    compiled = torch.compile(_forward, backend="aot_eager")
    rows = []
    for label, function, run in (("eager, 3 nodes (the eager run)", _forward, "eager"),
                                 ("compiled (aot_eager), 1 node", compiled, "compiled")):
        for mode, said in MODES.items():
            cost = measure(function, run, args.rounds, args.calls, mode, torch)
            rows.append(f"| {label} | {said} | {cost.plain / 1000:.1f} µs | {cost.median / 1000:+.1f} µs "
                        f"| {cost.low / 1000:+.1f} … {cost.high / 1000:+.1f} µs |")
            print(rows[-1], flush=True)
    lines = ["## The per-call timer's own cost (--vs-eager, --profile)", "",
             f"One process; {args.rounds} rounds of {args.calls:,} calls each of the plain and the wrapped function, "
             "called in turn (which goes first alternating between rounds), each call timed on its own; a round's "
             "cost is its median wrapped call less its median plain call. Forward + backward: each call followed "
             "by `out.sum().backward()`, so the backward timing's work in the backward counts too; forward only: "
             "grad on, the graph dropped (inference without `no_grad`).", "",
             "| function | grad | plain call | timer's cost per call (median round) | rounds |",
             "|---|---|---|---|---|", *rows, "",
             machine_line(), f"- torch {torch.__version__} (git {torch.version.git_version[:12]})",
             f"- command: `python benchmarks/timer_cost.py --rounds {args.rounds} --calls {args.calls}"
             f"{' --tracers ' + args.tracers.name if args.tracers else ''}`"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
