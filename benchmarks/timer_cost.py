"""The per-call timer's own cost (``--vs-eager``, ``--profile``): a small function called plain and through the
timing wrapper, with grad off, with grad on and no backward, and with grad on and a backward after each call.

One process; each round wraps afresh (a run's calls from its first) and calls the plain and the wrapped function in
turn, call by call (which goes first alternating between rounds), each call timed on its own: a pause of the
machine's lands on one call of either side, not on a batch. The first calls (every backward timed) and the later
ones (a sample of backwards timed) are costed apart; the report gives the median round. Two functions: an eager
3-node forward (as in the eager run: its backward is timed by the nodes its forward made) and the same compiled with
``aot_eager`` (one ``CompiledFunctionBackward`` node). Writes its section of RESULTS.md. Usage:

    python benchmarks/timer_cost.py [--rounds 15] [--blocks 32]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _forward(x):
    return (x * 2 + 1).sin()  # three autograd nodes with grad on


def _wrapped(function: Callable, mode: str, torch) -> tuple[Any, Callable]:
    """The timer, and ``function`` behind the wrapper ``torch.compile`` returns while it is installed (its ``_timed``),
    as the run of this mode ("compiled": the traced run; "eager": the run with compile off) makes it."""
    from tracers.capture.speed import CallTimer

    timer = CallTimer(mode)
    # the host's part, even where CUDA is in use: no CUDA events recorded
    wrapped, _ = timer.timing(function, function.__name__, cuda=False)
    return timer, wrapped


RUN = 1_000  # a run of so many calls, whose mean cost per call the table gives
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
    """Nanoseconds per call, each the median round's: the plain call; the wrapper's cost while every call's backward
    is timed (a run's first ALL_TIMED calls) and its mean cost per call after them (one in SAMPLE_EVERY timed); the
    lowest and highest round of each."""

    plain: float
    first: float
    first_range: tuple[float, float]
    later: float
    later_range: tuple[float, float]

    def mean(self, calls: int) -> float:
        """The cost per call averaged over a run of ``calls`` calls."""
        from tracers.capture.backward_timing import ALL_TIMED

        head = min(calls, ALL_TIMED)
        return (head * self.first + (calls - head) * self.later) / calls


SETTLE = 8  # a fresh wrapper's first calls, left out of its first calls' median


def measure(plain: Callable, run: str, rounds: int, blocks: int, mode: str, torch) -> Cost:
    """The wrapper's cost on ``plain`` in ``mode`` (see MODES), timed as the ``run`` ("compiled", "eager") wraps it.

    Each round wraps afresh, so its calls are a run's from the first: the first ALL_TIMED calls' cost is the median
    wrapped call less the median plain call; after them, ``blocks`` blocks of SAMPLE_EVERY calls (one timed in each)
    give the mean cost per call as the median block's sum, wrapped less plain, over SAMPLE_EVERY, so a pause of the
    machine's lands on one block of either side."""
    from tracers.capture.backward_timing import ALL_TIMED, SAMPLE_EVERY

    x = torch.randn(16, requires_grad=True)
    _round(plain, plain, x, 50, mode, torch)  # warm-up: a compiled function compiles here
    plain_ns, first, later = [], [], []
    for number in range(rounds):
        timer, wrapped = _wrapped(plain, run, torch)
        gc.collect()
        calls = ALL_TIMED + blocks * SAMPLE_EVERY
        try:
            if number % 2 == 0:
                plain_times, wrapped_times = _round(plain, wrapped, x, calls, mode, torch)
            else:
                wrapped_times, plain_times = _round(wrapped, plain, x, calls, mode, torch)
        finally:
            timer.uninstall()  # AOTAutograd's node class back: the next round's timer wraps it afresh
        plain_ns.append(statistics.median(plain_times))
        first.append(statistics.median(wrapped_times[SETTLE:ALL_TIMED])
                     - statistics.median(plain_times[SETTLE:ALL_TIMED]))
        sums = [sum(wrapped_times[at:at + SAMPLE_EVERY]) - sum(plain_times[at:at + SAMPLE_EVERY])
                for at in range(ALL_TIMED, calls, SAMPLE_EVERY)]
        later.append(statistics.median(sums) / SAMPLE_EVERY)
    return Cost(statistics.median(plain_ns), statistics.median(first), (min(first), max(first)),
                statistics.median(later), (min(later), max(later)))


def _us(ns: float, spread: tuple[float, float]) -> str:
    return f"{ns / 1000:+.1f} µs ({spread[0] / 1000:+.1f} … {spread[1] / 1000:+.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--blocks", type=int, default=32, help="blocks of SAMPLE_EVERY calls a round, after the first")
    args = parser.parse_args(argv)
    import torch

    from benchmarks.results import publish
    from tracers.capture.backward_timing import ALL_TIMED, SAMPLE_EVERY

    compiled = torch.compile(_forward, backend="aot_eager")
    rows = []
    for label, function, run in (("eager, 3 nodes (the eager run)", _forward, "eager"),
                                 ("compiled (aot_eager), 1 node", compiled, "compiled")):
        for mode, said in MODES.items():
            cost = measure(function, run, args.rounds, args.blocks, mode, torch)
            rows.append(f"| {label} | {said} | {cost.plain / 1000:.1f} µs | {_us(cost.first, cost.first_range)} "
                        f"| {_us(cost.later, cost.later_range)} | {cost.mean(RUN) / 1000:+.1f} µs |")
            print(rows[-1], file=sys.stderr, flush=True)
    lines = ["## The per-call timer's own cost (--vs-eager, --profile)", "",
             "The wrapper `torch.compile` returns while `--vs-eager`/`--profile` time calls "
             "(tracers/capture/speed.py), around a 3-node function `(x * 2 + 1).sin()` on a 16-float tensor: as the "
             "eager run wraps it (its backward timed by hooks on the nodes its forward made), and compiled with "
             "`aot_eager` as the traced run wraps it (one `CompiledFunctionBackward` node, timed by its class). "
             f"Every call's backward is timed up to the {ALL_TIMED}th call, then one call's in {SAMPLE_EVERY} "
             "(tracers/capture/backward_timing.py: `sampled`); the others are timed at their boundaries only.", "",
             f"One process; {args.rounds} rounds, each wrapping afresh and calling the plain and the wrapped function "
             f"in turn, call by call (which goes first alternating between rounds), {ALL_TIMED} + "
             f"{args.blocks} × {SAMPLE_EVERY} calls each, each call timed on its own. Over the first {ALL_TIMED} "
             f"calls (less the first {SETTLE}) the cost is the median wrapped call less the median plain call; after "
             f"them it is the median block of {SAMPLE_EVERY} calls, wrapped less plain, over {SAMPLE_EVERY}: the mean "
             "per call, the timed call's cost spread over its block. The median round, with the lowest and highest. "
             "Forward + backward: each call followed by `out.sum().backward()`, so the backward timing's work in "
             "the backward counts too; forward only: grad on, the graph dropped (inference without `no_grad`).", "",
             f"| function | grad | plain call | cost per call, the first {ALL_TIMED} calls (every backward timed) "
             f"| cost per call after them (one backward in {SAMPLE_EVERY} timed) | mean over a {RUN:,}-call run |",
             "|---|---|---|---|---|---|", *rows, ""]
    publish("timer-cost", lines, f"python benchmarks/timer_cost.py --rounds {args.rounds} --blocks {args.blocks}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
