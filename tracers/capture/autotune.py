"""What autotuning decided: each benchmarked candidate's time, read from ``do_autotuning``'s result."""

from __future__ import annotations

import math
from typing import Any

from tracers.vocabulary.durations import duration

from .recorder import Recorder

TARGET = "torch._inductor.select_algorithm:AlgorithmSelectorCache.do_autotuning"


def _sizes(node: Any) -> str:
    try:
        return "x".join(str(size) for size in node.get_size())
    except Exception:  # noqa: BLE001 - an input without a plain size is shown as such
        return "?"


def _milliseconds(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None  # a candidate that failed is timed as inf


def describe(args: tuple[Any, ...], timings: Any) -> tuple[dict[str, Any], str] | None:
    """Metadata and a readable table for one ``do_autotuning(self, name, input_nodes, ...)`` call.

    ``timings`` maps each candidate (a ChoiceCaller with ``name`` and ``description``) to milliseconds.
    """
    if not isinstance(timings, dict) or not timings or len(args) < 3:
        return None
    op, input_nodes = str(args[1]), args[2]
    choices = sorted(
        ({"name": str(getattr(choice, "name", choice)),
          "description": str(getattr(choice, "description", "") or ""),
          "ms": _milliseconds(time)} for choice, time in timings.items()),
        key=lambda choice: math.inf if choice["ms"] is None else choice["ms"],
    )
    inputs = [_sizes(node) for node in input_nodes]
    metadata = {"op": op, "inputs": inputs, "choices": choices, "chosen": choices[0]["name"]}
    best = choices[0]["ms"]
    lines = [f"{op}({', '.join(inputs)}): {len(choices)} candidates benchmarked"]
    for choice in choices:
        ms = choice["ms"]
        timing = "failed" if ms is None else duration(ms * 1e6)
        ratio = f"{best / ms:6.1%}" if ms and best is not None else "     -"
        mark = "  <- chosen" if choice is choices[0] else ""
        lines.append(f"  {choice['name']:<40} {timing:>12} {ratio}  {choice['description']}{mark}")
    return metadata, "\n".join(lines)


def file_results(recorder: Recorder, args: tuple[Any, ...], timings: Any) -> None:
    described = describe(args, timings)
    if described is not None:
        metadata, text = described
        recorder.add_artifact("autotune", "autotune_results", None, metadata, text, len(text))


def install(recorder: Recorder) -> None:
    recorder.result_observers[TARGET] = file_results
