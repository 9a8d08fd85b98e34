"""``measure EXAMPLE``: eager against torch.compile across batch sizes, each run in a fresh process (measure/)."""

from __future__ import annotations

import argparse

from tracers.measure.command import DEFAULT_BATCH_SIZES, DEFAULT_OUT, MeasureOptions, UsageError, run_measure

from .say import say

HELP = "time eager against torch.compile across batch sizes"


def add_arguments(measure: argparse.ArgumentParser) -> None:
    """Device, batch sizes, modes, backend, sampling, threads, where results go, the example."""
    measure.description = (
        "Time EXAMPLE's build(batch_size) -> (callable, args) eager and compiled, each mode and batch "
        "size in a fresh process: first call with cold and warm compile caches, steady-state time per "
        "call (median of timed blocks, after warm-up), speedup, break-even calls, peak memory. Writes "
        "DIR/<device>/<torch release>/EXAMPLE.json and SVG charts beside it.")
    measure.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                         help="cuda: the example's tensors go to the GPU (torch's default device), timing "
                              "synchronizes it (default: cpu)")
    measure.add_argument("--batch-sizes", default=DEFAULT_BATCH_SIZES, metavar="N,N,...",
                         help=f"batch sizes to build the example with (default: {DEFAULT_BATCH_SIZES})")
    measure.add_argument("--modes", default="", metavar="MODE,...",
                         help="torch.compile modes: default, reduce-overhead, max-autotune-no-cudagraphs, "
                              "max-autotune (default: default, plus reduce-overhead on cuda); eager is always measured")
    measure.add_argument("--backend", default="inductor", help="torch.compile backend (default: inductor)")
    measure.add_argument("--repeats", type=int, default=20, metavar="N",
                         help="timed samples of the steady state, each a block of calls of at least 2 ms (default 20)")
    measure.add_argument("--warmup", type=int, default=5, metavar="N",
                         help="untimed calls after the first, before timing the steady state (default 5)")
    measure.add_argument("--no-warm", dest="warm", action="store_false",
                         help="skip the warm-cache runs (a run that fills a fresh cache, then one that reuses it)")
    measure.add_argument("--threads", type=int, default=0, metavar="N",
                         help="torch's CPU threads in each run (torch.set_num_threads; default: torch's own choice)")
    measure.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output root (default: {DEFAULT_OUT})")
    measure.add_argument("--run-timeout", type=float, default=600.0, metavar="S",
                         help="stop a run's process after S seconds (default 600)")
    measure.add_argument("example", metavar="EXAMPLE", help="a Python file defining build(batch_size)")


def run(args: argparse.Namespace) -> int:
    """The measurement's exit status; 2 with one line for bad input."""
    try:
        return run_measure(MeasureOptions(
            example=args.example, device=args.device, batch_sizes=args.batch_sizes, modes=args.modes,
            backend=args.backend, repeats=args.repeats, warmup=args.warmup, warm=args.warm,
            out=args.out, run_timeout=args.run_timeout, threads=args.threads,
        ), args.argv)
    except UsageError as error:
        say("measure", error)
        return 2
