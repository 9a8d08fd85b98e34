"""Issue 28 on a GPU: ``--vs-eager --profile`` on two training steps, checked against timings made outside the tracer.

For each model (benchmarks/gpu/train_steps.py: timm ResNet-50, HF GPT-2; Inductor, default mode), ROUNDS rounds of
three fresh processes, in turn: the step script without the tracer and compile off (TORCHDYNAMO_DISABLE=1), CUDA events
around 20 steady steps and then a pair per step; the same compiled; ``python -m tracers trace --vs-eager`` on it
(``--profile`` in the last round, whose profiled calls are left out of its timing). The first round compiles cold, the
later ones find Inductor's cache warm. Each number is the median over the rounds, so one slow process (another job on
the host, a clock change) moves no result. Writes OUT/speed_gpu-MODELS.md (per round and medians: tracer against
reference, within 15%?; the findings; the top lines by kernel time against torch.profiler's own kernel totals) and every
log it read, under OUT (default $OUT, else ./). Needs only torch, timm and transformers. Usage, one model per GPU:

    CUDA_VISIBLE_DEVICES=0 taskset -c 0-15 python benchmarks/gpu/speed_gpu.py --models resnet50 --rounds 3
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agreement import median as _median, ms as _ms, row as _row  # noqa: E402

OFF = {"TORCHDYNAMO_DISABLE": "1", "TORCH_COMPILE_DISABLE": "1"}


def _run(command: list[str], env: dict[str, str], log: Path, timeout: float) -> tuple[int, str, float]:
    began = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                            capture_output=True, text=True, timeout=timeout, check=False)
    log.write_text(f"$ {' '.join(command)}\n{result.stdout}\n--- stderr ---\n{result.stderr}")
    return result.returncode, result.stdout, time.perf_counter() - began


def _reference(model: str, env: dict[str, str], log: Path, timeout: float) -> dict[str, float]:
    code, stdout, _ = _run([sys.executable, str(STEPS), model], {"SPEED_REFERENCE": "1", **env}, log, timeout)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if code == 0 and lines else {}


def _traced_step(traces: Path):  # noqa: ANN202 - (runtime analysis, the step's timings) or (None, None)
    from tracers.analysis.speed import speed_of
    from tracers.tracefile.chrome import load

    found = sorted(traces.glob("*-c*-*.json"))
    if not found:
        return None, None, None
    trace = load(found[0])
    speed = speed_of(trace)
    # The step is a closure (``gpt2.<locals>.train_step``): matched by its own name.
    steps = [function for function in (speed.functions if speed else ())
             if function.name.rsplit(".", 1)[-1] == "train_step"]
    return trace, speed, (steps[0] if steps else None)


def check(model: str, steps: int, rounds: int, out: Path, timeout: float) -> list[str]:
    from tracers.analysis.findings import findings

    here = out / model
    here.mkdir(parents=True, exist_ok=True)
    table = ["| round | eager: tracer | eager: reference (mean of 20 / median per step) | compiled: tracer | "
             "compiled: reference (mean of 20 / median per step) | speedup tracer / reference |",
             "|---|---|---|---|---|---|"]
    per_round: list[dict[str, float | None]] = []
    last = None
    for number in range(1, rounds + 1):
        eager_ref = _reference(model, OFF, here / f"reference-eager-{number}.log", timeout)
        profile = {"SPEED_PROFILE": str(here)} if number == rounds else {}
        compiled_ref = _reference(model, profile, here / f"reference-compiled-{number}.log", timeout)
        # No --device cuda: the steps put their models on the GPU themselves, and a CUDA default device adds a
        # Python-level mode to every eager op, which the reference runs do not pay.
        options = ["--vs-eager"] + (["--profile"] if number == rounds else [])
        traces = here / f"traces-{number}"
        code, _, traced_s = _run([sys.executable, "-m", "tracers", "trace", *options, "--out", str(traces),
                                  str(STEPS), model, str(steps)], {}, here / f"traced-{number}.log", timeout)
        trace, speed, step = _traced_step(traces)
        row = {"eager": step.eager_ns / 1e6 if step and step.eager_ns else None,
               "compiled": step.compiled_ns / 1e6 if step and step.compiled_ns else None,
               "eager_ref": eager_ref.get("ms_per_step"), "eager_ref_call": eager_ref.get("median_ms_per_call"),
               "compiled_ref": compiled_ref.get("ms_per_step"),
               "compiled_ref_call": compiled_ref.get("median_ms_per_call")}
        per_round.append(row)
        if step is not None:
            last = (trace, speed, step, traced_s, code)
        table.append(f"| {number} | {_ms(row['eager'])} | {_ms(row['eager_ref'])} / {_ms(row['eager_ref_call'])} | "
                     f"{_ms(row['compiled'])} | {_ms(row['compiled_ref'])} / {_ms(row['compiled_ref_call'])} | "
                     f"{_ratio(row['eager'], row['compiled'])} / {_ratio(row['eager_ref'], row['compiled_ref'])} |")
        (here / "rounds.md").write_text("\n".join(table) + "\n")  # kept if a later round runs out of time
    median = {key: _median([row[key] for row in per_round]) for key in per_round[0]}
    lines = [f"## {model}", "", f"{rounds} rounds of fresh processes (the first compiles cold):", ""] + table + [""]
    lines += ["Medians over the rounds:", "", "| per step | tracer | reference (CUDA events around 20 steps) | "
              "difference | within 15% |", "|---|---|---|---|---|"]
    lines += [_row(label, median[label], median[f"{label}_ref"]) for label in ("eager", "compiled")]
    lines += ["", f"speedup: tracer {_ratio(median['eager'], median['compiled'])}, reference "
              f"{_ratio(median['eager_ref'], median['compiled_ref'])}", ""]
    if last is None:
        return lines + ["no train_step timed in any round: see traced-*.log", ""]
    trace, speed, step, traced_s, code = last
    lines += [f"last round's trace (exit {code}, {traced_s:.0f} s): compile {step.compile_ns / 1e9:.1f} s, pays back "
              f"after {step.payback_calls if step.payback_calls is not None else 'never'} calls; "
              f"{step.steady_calls} steady calls of {step.calls}", ""]
    found = [finding for finding in findings(trace) if finding.kind in ("slower-than-eager", "never-pays-back", "one-time")]
    lines += ["Findings from the last round:", ""] + [f"- {finding.kind}: {finding.what} — {finding.fix}"
                                                      for finding in found]
    lines += ["" if found else "- none", ""]
    lines += _top_lines(speed, here)
    lines += [f"- note: {note}" for note in speed.notes] + [""]
    return lines


def _ratio(eager: float | None, compiled: float | None) -> str:
    return f"{eager / compiled:.2f}×" if eager and compiled else "—"


def _top_lines(speed, directory: Path) -> list[str]:  # noqa: ANN001 - analysis.runtime.Speed
    """The tracer's kernel times (by line, and by kernel) against torch.profiler's own table of the reference run.

    A line's time is its kernels' time split by a fixed rule (a kernel made from n lines gives each 1/n), so the lines
    agree with the profiler exactly when the kernels do: the check is per kernel, Triton kernels by name, an extern
    kernel (cuBLAS, cuDNN: a library's name on the device) by its aten op's device time."""
    kernels_file, ops_file = directory / "profiler_kernels.json", directory / "profiler_ops.json"
    reference = json.loads(kernels_file.read_text()) if kernels_file.exists() else {}
    ops = json.loads(ops_file.read_text()) if ops_file.exists() else {}
    lines = []
    for profile in speed.profiles:
        lines += [f"Top lines by kernel time ({profile.name}, {profile.calls} profiled calls):", "",
                  "| line | tracer ms/call | kernels |", "|---|---|---|"]
        for line in profile.lines[:10]:
            where = f"{line.line.label} `{line.line.code[:60]}`" if line.line else "(no line)"
            lines.append(f"| {where} | {line.ns_per_call / 1e6:.3f} | {len(line.kernels)} |")
        whole: dict[str, float] = {}  # the tracer's time per call of each kernel, all its lines' shares together
        for line in profile.lines:
            for share in line.kernels:
                name = _reference_name(share.name)
                whole[name] = whole.get(name, 0.0) + share.ns_per_call / 1e6
        lines += ["", "The same kernels against torch.profiler's table of the reference run (ms per step; extern "
                      "kernels by their aten op):", "", "| kernel | tracer | profiler | ratio |", "|---|---|---|---|"]
        matched_ours = matched_theirs = 0.0
        for rank, (name, ours) in enumerate(sorted(whole.items(), key=lambda item: -item[1])):
            theirs = reference.get(name, ops.get(name))
            if theirs:
                matched_ours, matched_theirs = matched_ours + ours, matched_theirs + theirs
            if rank < 15:
                lines.append(f"| `{name[:70]}` | {ours:.3f} | {theirs if theirs is None else f'{theirs:.3f}'} | "
                             f"{f'{ours / theirs:.2f}' if theirs else '—'} |")
        lines += ["", f"matched kernels in all: tracer {matched_ours:.2f} ms per call, profiler {matched_theirs:.2f} ms "
                      f"per step ({matched_ours / matched_theirs:.2f}×)" if matched_theirs else "no kernel matched"]
        outside = f"{profile.outside_ns / 1e6:.2f} ms" if profile.outside_ns is not None else "—"
        lines += ["", f"outside compiled graphs per call: {outside}; CUDA graphs: "
                  + ("; ".join(f"[{use.compile_id}] {use.replays_per_call:g}/call"
                               + (f" skipped: {'; '.join(use.skipped)}" if use.skipped else "")
                               for use in profile.cudagraphs) or "none seen"), ""]
    return lines


def _reference_name(name: str) -> str:
    """The profiler's name for a kernel the trace names: ``extern_kernels.mm`` and ``torch.ops.aten.mm.default`` are
    ``aten::mm``; a Triton kernel keeps its name."""
    if name.startswith("extern_kernels."):
        return "aten::" + name.removeprefix("extern_kernels.")
    if name.startswith("torch.ops.aten."):
        return "aten::" + name.removeprefix("torch.ops.aten.").rsplit(".", 1)[0]
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gpt2,resnet50")
    parser.add_argument("--steps", type=int, default=40, help="steps the traced script runs (default 40)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of fresh processes, medians over them (default 3)")
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
            report += check(model, options.steps, options.rounds, out, options.timeout)
        except Exception as error:  # noqa: BLE001 - one model's failure is reported, the other still runs
            report += [f"## {model}: failed", "", f"{type(error).__name__}: {error}", ""]
        (out / f"speed_gpu-{options.models.replace(',', '-')}.md").write_text("\n".join(report) + "\n")
    print("\n".join(report))


if __name__ == "__main__":
    main()
