"""Issue 28 on a GPU: ``--vs-eager --profile`` on two training steps, checked against timings made outside the tracer.

For each model (benchmarks/gpu/train_steps.py: timm ResNet-50, HF GPT-2; Inductor, default mode, cold):
1. ``python -m tracers trace --vs-eager --profile --device cuda`` on the step script (trace, page, summary kept);
2. the same script, no tracer, compile off (TORCHDYNAMO_DISABLE=1): CUDA events around 20 steady steps;
3. the same script, no tracer, compiled: CUDA events around 20 steady steps, then torch.profiler's own table.
Writes OUT/speed_gpu.md (eager and compiled per step, tracer against reference, within 15%?, the findings, the top
lines by kernel time against the profiler's kernel totals) and everything it read, under OUT (default $OUT, else ./).
Needs only torch, timm and transformers. Usage (one model per call keeps each under ten minutes):

    python benchmarks/gpu/speed_gpu.py --models gpt2
    python benchmarks/gpu/speed_gpu.py --models resnet50
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STEPS = Path(__file__).resolve().parent / "train_steps.py"
sys.path.insert(0, str(ROOT))
OFF = {"TORCHDYNAMO_DISABLE": "1", "TORCH_COMPILE_DISABLE": "1"}
TOLERANCE = 0.15


def _run(command: list[str], env: dict[str, str], log: Path, timeout: float) -> tuple[int, str, float]:
    began = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                            capture_output=True, text=True, timeout=timeout, check=False)
    log.write_text(f"$ {' '.join(command)}\n{result.stdout}\n--- stderr ---\n{result.stderr}")
    return result.returncode, result.stdout, time.perf_counter() - began


def _reference(model: str, env: dict[str, str], out: Path, name: str, timeout: float) -> float | None:
    code, stdout, _ = _run([sys.executable, str(STEPS), model], {"SPEED_REFERENCE": "1", **env}, out / f"{name}.log",
                           timeout)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1])["ms_per_step"] if code == 0 and lines else None


def check(model: str, steps: int, out: Path, timeout: float) -> list[str]:
    from tracers.analysis.findings import findings
    from tracers.analysis.runtime import runtime
    from tracers.tracefile.chrome import load

    here = out / model
    here.mkdir(parents=True, exist_ok=True)
    # No --device cuda: the steps put their models on the GPU themselves, and a CUDA default device adds a
    # Python-level mode to every eager op (about 19% on ResNet-50's eager step on an H200), which the
    # reference runs below do not pay.
    code, _, traced_s = _run([sys.executable, "-m", "tracers", "trace", "--vs-eager", "--profile",
                              "--out", str(here / "traces"), str(STEPS), model, str(steps)], {}, here / "traced.log",
                             timeout)
    eager_ref = _reference(model, OFF, here, "reference-eager", timeout)
    compiled_ref = _reference(model, {"SPEED_PROFILE": str(here)}, here, "reference-compiled", timeout)
    lines = [f"## {model}", "", f"traced run (both runs, profile, page): exit {code}, {traced_s:.0f} s", ""]
    traces = sorted((here / "traces").glob("*-c*-*.json"))
    if not traces:
        return lines + ["no trace written: see traced.log", ""]
    trace = load(traces[0])
    speed = runtime(trace)
    # The step is a closure (``gpt2.<locals>.train_step``): matched by its own name.
    steps_fn = [function for function in (speed.functions if speed else ())
                if function.name.rsplit(".", 1)[-1] == "train_step"]
    if not steps_fn:
        return lines + [f"no train_step timed: {speed}", ""]
    step = steps_fn[0]
    lines += ["| per step | tracer (median, CUDA events per call) | reference (CUDA events around 20 steps) | "
              "difference | within 15% |", "|---|---|---|---|---|"]
    for label, ours, theirs in (("eager", step.eager_ns, eager_ref), ("compiled", step.compiled_ns, compiled_ref)):
        if ours is None or theirs is None:
            lines.append(f"| {label} | {ours and ours / 1e6} | {theirs} | — | not measured |")
            continue
        difference = ours / 1e6 / theirs - 1
        lines.append(f"| {label} | {ours / 1e6:.2f} ms | {theirs:.2f} ms | {difference:+.1%} | "
                     f"{'yes' if abs(difference) <= TOLERANCE else 'NO'} |")
    lines += ["", f"speedup {step.speedup:.2f}× (reference "
              f"{(eager_ref or 0) / (compiled_ref or 1):.2f}×), compile {step.compile_ns / 1e9:.1f} s, pays back "
              f"after {step.payback_calls if step.payback_calls is not None else 'never'} calls; "
              f"{step.steady_calls} steady calls of {step.calls}", ""]
    found = [finding for finding in findings(trace) if finding.kind in ("slower-than-eager", "never-pays-back")]
    lines += ["Findings from the run:", ""] + [f"- {finding.kind}: {finding.what} — {finding.fix}" for finding in found]
    lines += ["" if found else "- none", ""]
    lines += _top_lines(speed, here / "profiler_kernels.json")
    lines += [f"- note: {note}" for note in speed.notes] + [""]
    return lines


def _top_lines(speed, kernels_file: Path) -> list[str]:  # noqa: ANN001 - analysis.runtime.Runtime
    reference = json.loads(kernels_file.read_text()) if kernels_file.exists() else {}
    lines = []
    for profile in speed.profiles:
        lines += [f"Top lines by kernel time ({profile.name}, {profile.calls} profiled calls) against torch.profiler's "
                  "own kernel totals (device ms per step, same kernel names):", "",
                  "| line | tracer ms/call | profiler ms/step | kernels |", "|---|---|---|---|"]
        for line in profile.lines[:10]:
            names = {share.name for share in line.kernels}
            theirs = sum(value for name, value in reference.items() if name in names)
            where = f"{line.line.label} `{line.line.code[:60]}`" if line.line else "(no line)"
            lines.append(f"| {where} | {line.ns_per_call / 1e6:.3f} | {theirs:.3f} | {len(names)} |")
        outside = f"{profile.outside_ns / 1e6:.2f} ms" if profile.outside_ns is not None else "—"
        lines += ["", f"outside compiled graphs per call: {outside}; CUDA graphs: "
                  + ("; ".join(f"[{use.compile_id}] {use.replays_per_call:g}/call"
                               + (f" skipped: {'; '.join(use.skipped)}" if use.skipped else "")
                               for use in profile.cudagraphs) or "none seen"), ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gpt2,resnet50")
    parser.add_argument("--steps", type=int, default=40, help="steps the traced script runs (default 40)")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--timeout", type=float, default=540.0, help="seconds per process")
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    import torch

    report = ["# --vs-eager and --profile on a GPU", "",
              f"torch {torch.__version__}, {torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}", ""]
    for model in options.models.split(","):
        try:
            report += check(model, options.steps, out, options.timeout)
        except Exception as error:  # noqa: BLE001 - one model's failure is reported, the other still runs
            report += [f"## {model}: failed", "", f"{type(error).__name__}: {error}", ""]
        (out / f"speed_gpu-{options.models.replace(',', '-')}.md").write_text("\n".join(report) + "\n")
    print("\n".join(report))


if __name__ == "__main__":
    main()
