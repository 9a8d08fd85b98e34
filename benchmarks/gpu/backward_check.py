"""The backward timing of ``--vs-eager`` (tracers/capture/backward_timing.py) against CUDA events around
``loss.backward()`` outside it, eager, for each loop of benchmarks/gpu/loops.py; prints what the node walk found.

    python benchmarks/gpu/backward_check.py gpt2 llama resnet50
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import loops  # noqa: E402

from tracers.capture.backward_timing import BackwardTimer, _grad_fns, _lowest  # noqa: E402

STEPS, WARMUP = 15, 5


def check(name: str) -> dict:
    torch.manual_seed(0)
    model, optimizer, batch, loss_of, dtype = loops.MODELS[name]()
    timer = BackwardTimer(torch)
    timer.cuda = loops.DEVICE == "cuda"
    outside, walk = [], {}
    for index in range(STEPS):
        with torch.autocast(loops.DEVICE, dtype=dtype, enabled=dtype is not None):
            sequence = timer.sequence()
            captured = {}

            def forward(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
                captured["out"] = out = model.__class__.__call__(model, *args, **kwargs)
                return out

            loss = loss_of(_Calling(forward), batch)
            timer.watch(index, sequence, captured["out"])
        if index == 0:
            after = torch._C._autograd._get_sequence_nr()
            roots = list(_grad_fns(captured["out"], torch.Tensor))
            first = max(roots, key=lambda node: node._sequence_nr())
            lowest = _lowest([first], range(sequence, after))
            walk = {"sequence": [sequence, after], "roots": [(type(r).__name__, r._sequence_nr()) for r in roots][:6],
                    "first_children": [(type(c).__name__, c._sequence_nr()) for c, _ in first.next_functions
                                       if c is not None],
                    "lowest": (type(lowest).__name__, lowest._sequence_nr()) if lowest is not None else None}
        start, end = (_Event(), _Event()) if loops.DEVICE != "cuda" else \
            (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        start.record()
        loss.backward()
        end.record()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        outside.append((start, end))
    if loops.DEVICE == "cuda":
        torch.cuda.synchronize()
    host, device = timer.times(STEPS)
    return {"model": name, "walk": walk, "note": timer.note,
            "outside_ms": statistics.median(s.elapsed_time(e) for s, e in outside[WARMUP:]),
            "timer_ms": statistics.median(d / 1e6 for d in (device or host)[WARMUP:] if d >= 0),
            "timer_host_ms": statistics.median(h / 1e6 for h in host[WARMUP:] if h >= 0)}


class _Event:
    """perf_counter in a CUDA event's shape (the CPU smoke test)."""

    def record(self) -> None:
        import time

        self.at = time.perf_counter()

    def elapsed_time(self, other: _Event) -> float:
        return 1e3 * (other.at - self.at)


class _Calling:
    """The model as loops' loss functions call it, its output kept for the walk."""

    def __init__(self, forward):  # noqa: ANN001
        self._forward = forward

    def __call__(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN204
        return self._forward(*args, **kwargs)


if __name__ == "__main__":
    for model_name in sys.argv[1:]:
        try:
            print(json.dumps(check(model_name)), flush=True)
        except Exception as error:  # noqa: BLE001 - the next model still runs
            print(json.dumps({"model": model_name, "error": f"{type(error).__name__}: {error}"}), flush=True)
