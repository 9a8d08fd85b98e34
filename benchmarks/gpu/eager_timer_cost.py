"""Issue 39 on a GPU: what ``--vs-eager``'s eager run costs the eager steps themselves, in one process, paired.

For each model of benchmarks/gpu/loops.py, eager (nothing compiled), the same loop step with the model called plain
and through the wrapper the eager run puts on it (tracers/capture/speed.py: its forward timed at its boundaries, its
backward by hooks on its nodes and the walk to its last node), in alternating blocks of BLOCK steps after a warm-up,
each step between CUDA events (wall time on the CPU). Each wrapped block gets a wrapper of its own, so every wrapped
call's backward is timed (the first calls of a run, before the sample thins them: the dearer case) however many
blocks run. Prints one JSON line per model and writes OUT/eager_timer_cost.json:

    python benchmarks/gpu/eager_timer_cost.py gpt2 llama resnet50 --blocks 24
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import loops  # noqa: E402
from tracers.capture.speed import CallTimer  # noqa: E402
from tracers.tracefile.speed import EAGER  # noqa: E402

BLOCK, WARMUP = 4, 6  # blocks of 4 steps, alternating plain and wrapped


def _steps(step, count: int) -> list[float]:  # noqa: ANN001
    """Milliseconds of each of ``count`` whole steps."""
    if loops.DEVICE != "cuda":
        marks = [time.perf_counter()]
        for _ in range(count):
            step()
            marks.append(time.perf_counter())
        return [1e3 * (b - a) for a, b in zip(marks, marks[1:])]
    events = [torch.cuda.Event(enable_timing=True) for _ in range(count + 1)]
    for index in range(count):
        events[index].record()
        step()
    events[count].record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in zip(events, events[1:])]


def measure(name: str, blocks: int) -> dict:
    torch.manual_seed(0)
    model, optimizer, batch, loss_of, dtype = loops.MODELS[name]()
    timer = CallTimer(EAGER)
    current, timed_calls = {"model": model}, []

    class Called:  # what the loss function calls: the plain model or the wrapper, as the block says
        def __call__(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN204
            return current["model"](*args, **kwargs)

    called = Called()

    def step() -> None:
        with torch.autocast(loops.DEVICE, dtype=dtype, enabled=dtype is not None):
            loss = loss_of(called, batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    _steps(step, WARMUP)
    plain, timed = [], []
    for number in range(2 * blocks):
        first = number % 4 in (0, 3)  # plain, wrapped, wrapped, plain, ...: neither side always first
        if first:
            current["model"] = model
        else:
            current["model"], calls = timer.timing(model, type(model).__name__)
            timed_calls.append(calls)
        (plain if first else timed).extend(_steps(step, BLOCK))
    timer.uninstall()
    backward, walks = [], []
    for calls in timed_calls:
        host, device = calls.backward.times(len(calls.host))
        backward += [ns / 1e6 for ns in (device if device is not None else host) if ns >= 0]
        walks += [took / 1e6 for _, took in calls.backward.walks]
    result = {"model": name, "device": loops.DEVICE, "plain_ms": statistics.median(plain),
              "wrapped_ms": statistics.median(timed), "steps_each": len(plain),
              "walks_ms": statistics.median(walks) if walks else None,
              "backward_ms": statistics.median(backward) if backward else None}
    result["cost"] = result["wrapped_ms"] / result["plain_ms"] - 1
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help=f"of {', '.join(loops.MODELS)} (default: all)")
    parser.add_argument("--blocks", type=int, default=6, help="blocks of 4 steps a side (default 6)")
    options = parser.parse_args()
    models = options.models or list(loops.MODELS)
    unknown = [name for name in models if name not in loops.MODELS]
    if unknown:  # argparse's choices reject an empty nargs="*" list on Python 3.11: checked here
        parser.error(f"unknown model {unknown[0]!r} (choose from {', '.join(loops.MODELS)})")
    results = [measure(name, options.blocks) for name in models]
    for result in results:
        print(json.dumps(result), flush=True)
    out = Path(os.environ.get("OUT") or ".")
    (out / "eager_timer_cost.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
