"""Issue 39 on a GPU: ``trace --vs-eager``'s whole-step figures against CUDA events around whole steps outside it.

For each model of benchmarks/gpu/loops.py, ROUNDS rounds of fresh processes: the loop eager and compiled, each timing
its own steps (STEP_REFERENCE=1: CUDA events around each whole step), then ``python -m tracers trace --vs-eager`` on
the same loop (its step: the interval between successive calls of the compiled model, CUDA events at each call's
start), the loop timing its own whole steps there too (so the tracer's steps are checked against the same
processes' own events, free of the spread between processes, as well as against the fresh ones). The first traced
round compiles cold, later ones with ``--cache warm`` (the steady step is the same; only the compile figure
differs); the references run first in odd rounds, the traced run in even ones, and compiled before eager as the
traced run's two processes do (with eager first, a traced eager process read 21% slower than its round's fresh one
in the rounds that began with the references, 6% in the others: benchmarks/RESULTS.md). Medians over the rounds, the
speedup as the ratio of the medians; within 15%? Models run side by side, one per GPU, each pinned to its own
cores. Writes OUT/step_check.json, OUT/step_check.md and the logs as OUT/step_check-logs.tar.gz (default $OUT,
else ./); ``--pool`` sums up several calls' rounds.

    python benchmarks/gpu/step_check.py --models gpt2,llama,resnet50 --rounds 3
    python benchmarks/gpu/step_check.py --pool results/step_check-*.json   # several calls' rounds together
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOOPS = Path(__file__).resolve().parent / "loops.py"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agreement import median, ms, row  # noqa: E402

OFF = {"TORCHDYNAMO_DISABLE": "1", "TORCH_COMPILE_DISABLE": "1"}
DEADLINE = float(os.environ.get("STEP_DEADLINE", "330"))  # seconds after which no new round starts
# Logs and traces, in the machine's temp folder unless STEP_SCRATCH names one: only the summary goes to OUT.
SCRATCH = Path(os.environ.get("STEP_SCRATCH") or Path(tempfile.gettempdir()) / "step_check")


def _run(command: list[str], env: dict[str, str], log: Path, timeout: float) -> tuple[int, str]:
    began = time.perf_counter()
    try:
        result = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                                capture_output=True, text=True, timeout=timeout, check=False)
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired as error:
        code, stdout, stderr = 124, str(error.stdout or ""), str(error.stderr or "")
    log.write_text(f"$ {' '.join(command)}\n({time.perf_counter() - began:.0f} s, exit {code})\n{stdout}\n"
                   f"--- stderr ---\n{stderr}")
    return code, stdout


def _reference(model: str, steps: int, env: dict[str, str], log: Path, timeout: float) -> dict | None:
    code, stdout = _run([sys.executable, str(LOOPS), model, str(steps)], {"STEP_REFERENCE": "1", **env}, log, timeout)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if code == 0 and lines else None


def _part(part) -> dict | None:  # noqa: ANN001 - analysis.speed.PartSpeed
    if part is None:
        return None
    return {"eager_ms": part.eager_ns / 1e6 if part.eager_ns is not None else None,
            "compiled_ms": part.compiled_ns / 1e6 if part.compiled_ns is not None else None,
            "steady": part.steady, "rounds": part.spread_text, "verdict": part.verdict}


def _traced(traces: Path) -> dict | None:
    from tracers.analysis.findings import findings
    from tracers.analysis.speed import speed_of
    from tracers.tracefile.chrome import load

    found = sorted(traces.glob("*.json"))
    if not found:
        return None
    trace = load(found[0])
    speed = speed_of(trace)
    if speed is None or not speed.functions:
        return None
    function = max(speed.functions, key=lambda item: item.calls)
    return {"name": function.name, "calls": function.calls, "timer": function.timer,
            "step": _part(function.step), "forward": _part(function.forward), "backward": _part(function.backward),
            "speedup": function.speedup, "verdict": function.verdict_said, "compile_s": function.compile_ns / 1e9,
            "compile_label": function.cost.label if function.cost else None, "notes": list(speed.notes),
            "findings": [f"{finding.kind}: {finding.what}" for finding in findings(trace)
                         if finding.kind in ("slower-than-eager", "never-pays-back")]}


def check(model: str, steps: int, rounds: int, out: Path, timeout: float) -> dict:
    here = SCRATCH / f"logs-{model}"
    here.mkdir(parents=True, exist_ok=True)
    results = []
    began = time.monotonic()
    for number in range(1, rounds + 1):
        if number > 1 and time.monotonic() - began > DEADLINE:  # the device call's 10 minutes: stop in time
            break
        record = {"round": number}

        def references() -> None:  # compiled, then eager: the order of the traced run's two processes
            record["compiled_ref"] = _reference(model, steps, {}, here / f"reference-compiled-{number}.log", timeout)
            record["eager_ref"] = _reference(model, steps, OFF, here / f"reference-eager-{number}.log", timeout)

        if number % 2:  # the references first in odd rounds, the traced run first in even ones
            references()
        traces, own = here / f"traces-{number}", here / f"traced-{number}-own.jsonl"
        own.unlink(missing_ok=True)
        cache = [] if number == 1 else ["--cache", "warm"]
        code, _ = _run([sys.executable, "-m", "tracers", "trace", "--vs-eager", *cache, "--no-page", "--out",
                        str(traces), str(LOOPS), model, str(steps)],
                       {"STEP_REFERENCE": "1", "STEP_REFERENCE_LOG": str(own)}, here / f"traced-{number}.log", timeout)
        record["traced"], record["traced_exit"] = _traced(traces), code
        # The traced processes' own CUDA events around the same whole steps: no process-to-process spread between them
        sides = [json.loads(line) for line in own.read_text().splitlines()] if own.exists() else []
        record.update({f"{side['side']}_own": side for side in sides})
        if not number % 2:
            references()
        results.append(record)
        (out / f"step_check-{model}.json").write_text(json.dumps(results, indent=1))  # kept if a later round fails
    return {"model": model, "rounds": results}


def summary(result: dict) -> list[str]:
    """Medians over the rounds: per-step times and the speedup, tracer against reference."""
    rows = result["rounds"]

    def traced(side: str) -> list:
        return [(each["traced"] or {}).get("step", {}) and each["traced"]["step"][f"{side}_ms"] for each in rows]

    def reference(side: str, key: str = "ref") -> list:
        return [(each.get(f"{side}_{key}") or {}).get("median_ms") for each in rows]

    lines = [f"### {result['model']} ({len(rows)} rounds)", ""]
    for key, said in (("ref", "fresh processes of the loop alone"), ("own", "the traced processes themselves")):
        lines += [f"| per step | tracer (median of rounds) | CUDA events around whole steps, {said} (median of "
                  "rounds) | difference | within 15% |", "|---|---|---|---|---|"]
        medians = {side: (median(traced(side)), median(reference(side, key))) for side in ("eager", "compiled")}
        lines += [row(side, *medians[side]) for side in ("eager", "compiled")]
        # The speedup of the medians: a round's eager and compiled processes are separate draws, so a ratio per
        # round pairs nothing and only adds both draws' spread.
        ours, theirs = (_ratio(medians["eager"][index], medians["compiled"][index]) for index in (0, 1))
        lines += [row("speedup", ours, theirs, "×"), ""]
    lines += [_within_rounds(traced, reference), ""]
    for each in rows:
        traced_row = each["traced"] or {}
        parts = {part: traced_row.get(part) or {} for part in ("step", "forward", "backward")}
        said = "; ".join(f"{part} eager {ms(got.get('eager_ms'))} / compiled {ms(got.get('compiled_ms'))} "
                         f"(rounds {got.get('rounds')})" for part, got in parts.items())
        eager, compiled = each.get("eager_ref") or {}, each.get("compiled_ref") or {}
        own_eager, own_compiled = each.get("eager_own") or {}, each.get("compiled_own") or {}
        lines.append(f"- round {each['round']}: tracer exit {each['traced_exit']}; {said}; verdict: "
                     f"{traced_row.get('verdict')}; compile {traced_row.get('compile_s', 0):.1f} s "
                     f"({traced_row.get('compile_label')}); reference eager {ms(eager.get('median_ms'))}, "
                     f"compiled {ms(compiled.get('median_ms'))}; the traced processes' own events eager "
                     f"{ms(own_eager.get('median_ms'))}, compiled {ms(own_compiled.get('median_ms'))}")
        lines += [f"  - finding {finding}" for finding in traced_row.get("findings", ())]
    return lines + [""]


def _within_rounds(traced, reference) -> str:  # noqa: ANN001 - summary's two readers of a side
    """Each round's tracer against that round's fresh process: neighbours in time share more of the machine's state."""
    said = []
    for side in ("eager", "compiled"):
        ratios = [ours / theirs for ours, theirs in zip(traced(side), reference(side)) if ours and theirs]
        if ratios:
            said.append(f"{side} {median(ratios) - 1:+.1%} (the tracer's higher in {sum(r > 1 for r in ratios)} of "
                        f"{len(ratios)})")
    return "Within each round, the tracer against that round's fresh process (median): " + ("; ".join(said) or "—")


def _ratio(eager: float | None, compiled: float | None) -> float | None:
    return eager / compiled if eager and compiled else None


def pooled(paths: list[Path]) -> list[dict]:
    """The rounds of several calls' OUT/step_check.json, model by model, in the order first met."""
    models: dict[str, list[dict]] = {}
    for path in paths:
        for result in json.loads(path.read_text()):
            models.setdefault(result["model"], []).extend(result["rounds"])
    return [{"model": model, "rounds": rounds} for model, rounds in models.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="gpt2,llama,resnet50")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--one", action="store_true", help="run the first model here (the parent starts one each)")
    parser.add_argument("--pool", nargs="+", type=Path, metavar="STEP_CHECK_JSON",
                        help="run nothing: the summary of these calls' rounds together")
    options = parser.parse_args()
    if options.pool:
        print("\n".join(line for result in pooled(options.pool) for line in summary(result)))
        return
    out = Path(os.environ.get("OUT") or ".")
    models = options.models.split(",")
    if options.one:
        check(models[0], options.steps, options.rounds, out, options.timeout)
        return
    gpus = max(1, int(os.environ.get("GPUS", "1")))
    cores = os.cpu_count() or 1
    per = max(1, cores // min(gpus, len(models)))
    children = []
    for index, model in enumerate(models):  # one model per GPU, side by side; more models than GPUs: in turn
        gpu = index % gpus
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": str(gpu), "TORCHINDUCTOR_COMPILE_THREADS": str(per)}
        command = ["taskset", "-c", f"{gpu * per}-{gpu * per + per - 1}", sys.executable, __file__, "--one",
                   "--models", model, "--rounds", str(options.rounds), "--steps", str(options.steps),
                   "--timeout", str(options.timeout)]
        if index >= gpus:
            children[index - gpus].wait()
        children.append(subprocess.Popen(command, env=env))
    for child in children:
        child.wait()
    report, everything = [], []
    for model in models:
        path = out / f"step_check-{model}.json"
        result = {"model": model, "rounds": json.loads(path.read_text()) if path.exists() else []}
        everything.append(result)
        report += summary(result) if result["rounds"] else [f"### {model}", "", "no round finished", ""]
    (out / "step_check.json").write_text(json.dumps(everything, indent=1))
    (out / "step_check.md").write_text("\n".join(report))
    # The logs (not the traces: large) in one file: what comes back from the device machine is a few files only.
    subprocess.run(["tar", "czf", str(out / "step_check-logs.tar.gz"), "--exclude=*.json", "--exclude=*.html",
                    "-C", str(SCRATCH), "."], check=False)
    print("\n".join(report))


if __name__ == "__main__":
    main()
