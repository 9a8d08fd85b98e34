"""--vs-eager and --profile: what each option costs, and whether the tracer's per-call times agree with
torch.utils.benchmark (within 25%) on the issue's two CPU cases.

Agreement: a tiny elementwise helper on 8-element tensors, and an MLP block (LayerNorm, two Linear, GELU) on a 64x512
batch, each compiled with Inductor. Per round, in fresh processes, the order alternating: ``trace --vs-eager`` on a
script calling it N times (its eager and compiled medians per steady call), and torch.utils.benchmark's
``blocked_autorange`` median of the same call, eager and compiled (in its own process, after warm-up): the compiled
ratio is also what the timing wrapper costs a call. Cost: the trace command's wall time plain, with --vs-eager and
with --profile (same script, alternating).

    python benchmarks/speed.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

CASES = {
    "tiny helper, 8 elements": ("torch.arange(8, dtype=torch.float32)", "lambda x: (x * 2 + 1).relu()", 20_000),
    "MLP block, 64x512": ("torch.randn(64, 512)", "MLPBlock()", 300),
}
SCRIPT = '''
import sys, torch
class MLPBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.up, self.down = torch.nn.LayerNorm(512), torch.nn.Linear(512, 2048), torch.nn.Linear(2048, 512)
    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
torch.manual_seed(0)
torch.set_num_threads(1)
x = {x}
fn = torch.compile({fn})
with torch.no_grad():
    if len(sys.argv) > 1:  # the reference: torch.utils.benchmark on the same call
        import json, torch.utils.benchmark as benchmark
        for _ in range(20):
            fn(x)
        timer = benchmark.Timer("fn(x)", globals={{"fn": fn, "x": x}}, num_threads=1)
        print(json.dumps({{"median_ns": timer.blocked_autorange(min_run_time=1.0).median * 1e9}}))
    else:
        for _ in range({calls}):
            fn(x)
'''
OFF = {"TORCHDYNAMO_DISABLE": "1", "TORCH_COMPILE_DISABLE": "1"}


def _python(args: list[str], env: dict[str, str] | None = None) -> tuple[str, float]:
    began = time.perf_counter()
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    return result.stdout, time.perf_counter() - began


def _traced(script: Path, out: Path, *options: str) -> tuple[object | None, float]:
    from tracers.analysis.speed import speed_of
    from tracers.tracefile.chrome import load

    _, took = _python(["-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(out), *options, str(script)])
    trace = sorted(out.glob(f"{script.stem}-cpu-cold*.json"))[-1]
    speed = speed_of(load(trace))
    trace.unlink()
    return (speed.functions[0] if speed and speed.functions else None), took


def _reference(script: Path, eager: bool) -> float:
    stdout, _ = _python([str(script), "reference"], OFF if eager else None)
    return json.loads(stdout.strip().splitlines()[-1])["median_ns"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    rows, costs = [], {"plain": [], "--vs-eager": [], "--profile": []}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for name, (x, fn, calls) in CASES.items():
            script = work / f"case_{len(rows)}.py"
            script.write_text(SCRIPT.format(x=x, fn=fn, calls=calls))
            ratios: dict[str, list[float]] = {"eager": [], "compiled": []}
            medians: dict[str, list[float]] = {"tracer eager": [], "tracer compiled": [], "ref eager": [],
                                               "ref compiled": []}
            for round_index in range(options.rounds):
                steps = ["tracer", "reference"] if round_index % 2 == 0 else ["reference", "tracer"]
                for step in steps:
                    if step == "tracer":
                        speed, took = _traced(script, work / "out", "--vs-eager")
                        medians["tracer eager"].append(speed.eager_ns)
                        medians["tracer compiled"].append(speed.compiled_ns)
                    else:
                        medians["ref eager"].append(_reference(script, True))
                        medians["ref compiled"].append(_reference(script, False))
                for mode in ("eager", "compiled"):
                    ratios[mode].append(medians[f"tracer {mode}"][-1] / medians[f"ref {mode}"][-1])
            for mode in ("eager", "compiled"):
                ratio = statistics.median(ratios[mode])
                rows.append(f"| {name} | {mode} | {statistics.median(medians[f'tracer {mode}']) / 1e3:.2f} µs | "
                            f"{statistics.median(medians[f'ref {mode}']) / 1e3:.2f} µs | {ratio:.3f}× | "
                            f"{'yes' if abs(ratio - 1) <= 0.25 else 'NO'} |")
        script = work / "case_0.py"  # the cost of the options: the tiny helper's script, cold, alternating
        for round_index in range(options.rounds):
            order = list(costs)
            order = order[round_index % 3:] + order[:round_index % 3]
            for option in order:
                flags = () if option == "plain" else (option,)
                costs[option].append(_traced(script, work / "out", *flags)[1])
    plain = statistics.median(costs["plain"])
    lines = [
        "## Speed by your code: --vs-eager and --profile (CPU, Inductor, one thread)",
        "",
        f"- Agreement: {options.rounds} rounds, fresh processes, tracer and torch.utils.benchmark alternating which "
        "goes first; the tracer's median per steady call against blocked_autorange's median; ratio = median of "
        "per-round ratios.",
        "",
        "| case | mode | tracer | torch.utils.benchmark | ratio | within 25% |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "- Under load (two cores shared with other jobs) a block's mean includes every preemption, the median of "
        "single calls does not: a tiny call's reference then reads several times high. Re-run on a quiet machine "
        "before reading the tiny case's ratio.",
        "",
        "- Cost: the whole trace command on the tiny helper's script (20,000 calls), cold, the three alternating.",
        "",
        "| option | wall time (median) | against plain |",
        "|---|---|---|",
        *(f"| {option} | {statistics.median(values):.1f} s | {statistics.median(values) / plain:.2f}× |"
          for option, values in costs.items()),
        "",
        "- A plain trace installs nothing per call (capture/options.py builds the timing only for these options).",
        "",
    ]
    publish("speed-by-code", lines, f"python benchmarks/speed.py --rounds {options.rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
