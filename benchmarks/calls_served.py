"""Calls served: the per-call cost of counting each compiled graph's calls (a wrapper Dynamo's code calls through).

One process compiles the MLP example under the tracer, so its graph is installed wrapped; then batches of
calls rotate through: counted (the wrapper in place), uncounted (the graph put back as Dynamo installed it)
and uncounted again (the noise floor). Median call time per batch; the ratio is the median of per-round ratios.

    python benchmarks/calls_served.py [--rounds 15] [--calls 300]
"""

from __future__ import annotations

import argparse
import gc
import runpy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "mlp.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=300)
    options = parser.parse_args()

    import torch

    from tracers.capture.session import TraceSession

    torch.manual_seed(0)
    model, x = runpy.run_path(str(EXAMPLE), run_name="bench")["MLP"](), torch.randn(8, 32)
    session = TraceSession()
    session.start()
    compiled = torch.compile(model)
    with torch.no_grad():
        for _ in range(20):
            compiled(x)  # compile (under the tracer: the graph is installed wrapped) and warm up
        installed = list(session.calls._installed)  # (globals, name, graph, wrapper): what the counter put in
        if not installed:
            sys.exit("no compiled graph was wrapped: nothing to measure")

        def place(counted: bool) -> None:
            for scope, name, graph, wrapper in installed:
                scope[name] = wrapper if counted else graph

        conditions = ("counted", "uncounted", "uncounted again")
        medians: dict[str, list[float]] = {condition: [] for condition in conditions}
        for round_index in range(options.rounds):
            shift = round_index % len(conditions)
            for condition in conditions[shift:] + conditions[:shift]:
                place(condition == "counted")
                gc.collect()
                per_call = []
                for _ in range(options.calls):
                    started = time.perf_counter_ns()
                    compiled(x)
                    per_call.append(time.perf_counter_ns() - started)
                medians[condition].append(statistics.median(per_call) / 1000)
        place(True)
    served = session.calls.served
    session.stop()

    def ratio(a: str, b: str) -> float:
        return statistics.median(y / x for x, y in zip(medians[a], medians[b]))

    plain, counted, again = (statistics.median(medians[c]) for c in ("uncounted", "counted", "uncounted again"))
    lines = [
        "## Calls served: the cost of counting (MLP example, Inductor, CPU, inference)",
        "",
        f"- One process, one compiled model; {options.rounds} rounds of three batches of {options.calls} calls "
        "(counted, uncounted, uncounted again; the order rotates each round); median call time per batch.",
        "",
        "| measure | uncounted (median) | counted (median) | ratio (median of rounds) | target |",
        "|---|---|---|---|---|",
        f"| steady-state call | {plain:.1f} µs | {counted:.1f} µs | {ratio('uncounted', 'counted'):.3f}× | ≤ 1.01× |",
        f"| uncounted vs uncounted (noise floor) | {plain:.1f} µs | {again:.1f} µs | "
        f"{ratio('uncounted', 'uncounted again'):.3f}× | |",
        "",
        f"Calls the counter saw: {served} (every counted batch, plus the 20 warm-up calls).",
        "",
    ]
    publish("calls-served", lines, f"python benchmarks/calls_served.py --rounds {options.rounds} --calls {options.calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
