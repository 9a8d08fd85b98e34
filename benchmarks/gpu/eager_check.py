"""Issue 39 on a GPU: does ``--vs-eager``'s eager run step slower than the loop alone, and if so, why?

The traced eager step read above adjacent fresh processes of the loop alone in most step_check.py rounds, while the
tracer agreed within 3% with the CUDA events of the processes it traced. Eager processes of these loops spread
widely (20-40 ms a step), so this check spends its time on eager processes only, the chosen kinds in turn, round
after round, each timing its own whole steps with CUDA events (benchmarks/gpu/loops.py, STEP_REFERENCE=1):

- ``alone``: the loop, compile off (the reference of step_check.py);
- ``timed``: the eager run as ``--vs-eager`` starts it (``python -m tracers.measure.eager_run``), a fresh process:
  the eager run's own timing, nothing else;
- ``child``: the same eager run started from a parent that holds a CUDA context with memory in use and the
  compile workers of an Inductor compile, as the traced process does when it starts the eager run;
- ``beside``: the same eager run, a fresh process, while another process (not its parent) holds a CUDA context with
  memory in use, idle: the context without the parenthood;
- ``after``: the same eager run started from a parent that has just run the loop itself compiled (no tracer), as
  the traced process has when it starts the eager run; ``cleaned``: the same, the parent first shutting its compile
  workers down and handing its cached CUDA memory back;
- ``traced``: the eager run of ``python -m tracers trace --vs-eager`` itself, the loop's own steps read from what
  its eager side appends to the log (its compiled side's line left out).

Medians over the rounds, each kind against ``alone``: theirs, and each round's against its own. Writes
OUT/eager_check.json and .md (default $OUT, else ./):

    STEP_DEADLINE=480 python benchmarks/gpu/eager_check.py gpt2 --rounds 20            # alone, timed, traced
    STEP_DEADLINE=480 python benchmarks/gpu/eager_check.py gpt2 --kinds alone,timed,beside,after
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOOPS = Path(__file__).resolve().parent / "loops.py"
OFF = {"TORCHDYNAMO_DISABLE": "1", "TORCH_COMPILE_DISABLE": "1"}
DEADLINE = float(os.environ.get("STEP_DEADLINE", "480"))  # seconds after which no new round starts (models share it)
KINDS = ("alone", "timed", "child", "beside", "after", "cleaned", "traced")
MODELS = ("gpt2", "llama", "resnet50")  # loops.py's (not imported: it imports torch, and this parent need not)

# The parent of ``child``: CUDA in use (memory held, as a finished training script's process holds it) and an
# Inductor compile done (its worker pool alive), then the eager run as --vs-eager starts it, waited for.
_PARENT = """
import subprocess, sys, torch
device = "cuda" if torch.cuda.is_available() else "cpu"
held = torch.empty(1 << 30, dtype=torch.uint8, device=device)
torch.compile(lambda x: (x * 2).sin())(torch.randn(8, device=device))
sys.exit(subprocess.run(sys.argv[1:]).returncode)
"""


# The parent of ``after`` and ``cleaned``: the loop compiled (argv up to "--"; the check's switches taken off for it),
# then, for ``cleaned``, the compile workers shut down and the CUDA cache emptied, then the eager run with them on.
_AFTER = """
import gc, os, runpy, subprocess, sys
split = sys.argv.index("--")
clean, loop, eager = sys.argv[1] == "cleaned", sys.argv[2:split], sys.argv[split + 1:]
switches = {name: os.environ.pop(name) for name in ("TORCHDYNAMO_DISABLE", "TORCH_COMPILE_DISABLE", "STEP_REFERENCE")
            if name in os.environ}
sys.argv = loop
runpy.run_path(loop[0], run_name="__main__")
if clean:
    import torch
    from torch._inductor.async_compile import shutdown_compile_workers
    gc.collect()
    shutdown_compile_workers()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
sys.exit(subprocess.run(eager, env={**os.environ, **switches}).returncode)
"""


# The other process of ``beside``: a CUDA context and 1 GiB in it, idle until its stdin closes.
_HOLDER = """
import sys, torch
held = torch.empty(1 << 30, dtype=torch.uint8, device="cuda" if torch.cuda.is_available() else "cpu")
print("holding", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def _held(kind: str) -> Iterator[None]:
    """For ``beside``: the holder running (and holding) while the block runs."""
    if kind != "beside":
        yield
        return
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        holder.stdout.readline()  # its context made and its memory held (or it died: then nothing is held)
        yield
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)


def _steps(kind: str, model: str, steps: int, timeout: float) -> dict | None:
    """One process of ``kind``: its whole steps' median, from the line it appends to its log."""
    with tempfile.TemporaryDirectory(prefix="eager-check-") as scratch:
        log, out = Path(scratch, "steps.jsonl"), Path(scratch, "eager.json")
        loop = [str(LOOPS), model, str(steps)]
        eager_run = [sys.executable, "-m", "tracers.measure.eager_run", str(out), "cpu", *loop]
        command = {"alone": [sys.executable, *loop], "timed": eager_run, "beside": eager_run,
                   "child": [sys.executable, "-c", _PARENT, *eager_run],
                   "after": [sys.executable, "-c", _AFTER, kind, *loop, "--", *eager_run],
                   "cleaned": [sys.executable, "-c", _AFTER, kind, *loop, "--", *eager_run],
                   "traced": [sys.executable, "-m", "tracers", "trace", "--vs-eager", "--quiet", "--no-page",
                              "--out", scratch, *loop]}[kind]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "STEP_REFERENCE": "1", "STEP_REFERENCE_LOG": str(log),
               **({} if kind == "traced" else OFF)}  # the tracer turns compile off for its eager run itself
        began = time.perf_counter()
        try:
            with _held(kind):
                code = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=timeout,
                                      check=False).returncode
        except subprocess.TimeoutExpired:
            return None
        lines = [line for line in (log.read_text().splitlines() if log.exists() else [])
                 if json.loads(line).get("side", "eager") == "eager"]
        if code != 0 or not lines:
            return None
        return {**json.loads(lines[-1]), "seconds": round(time.perf_counter() - began, 1)}


def check(model: str, kinds: tuple[str, ...], rounds: int, steps: int, timeout: float, until: float) -> list[dict]:
    """Up to ``rounds`` rounds, none started after ``until`` (time.monotonic) but the first."""
    rows = []
    for number in range(1, rounds + 1):
        if number > 1 and time.monotonic() > until:
            break
        turn = number % len(kinds)
        order = kinds[turn:] + kinds[:turn]  # each kind first in turn
        rows.append({"round": number, **{kind: _steps(kind, model, steps, timeout) for kind in order}})
    return rows


def summary(model: str, kinds: tuple[str, ...], rows: list[dict]) -> list[str]:
    def median(kind: str) -> float | None:
        values = [row[kind]["median_ms"] for row in rows if row.get(kind)]
        return statistics.median(values) if values else None

    def paired(kind: str) -> str:  # within each round, against that round's alone: processes run back to back
        ratios = [row[kind]["median_ms"] / row["alone"]["median_ms"] for row in rows
                  if row.get(kind) and row.get("alone")]
        return f"{statistics.median(ratios) - 1:+.1%}" if ratios else "—"

    alone = median("alone")
    lines = [f"### {model} ({len(rows)} rounds)", "", "| process | eager step (median of rounds) | against alone | "
             "against the same round's alone (median) | rounds' medians |", "|---|---|---|---|---|"]
    for kind in kinds:
        value = median(kind)
        against = f"{value / alone - 1:+.1%}" if value and alone else "—"
        each = ", ".join(f"{row[kind]['median_ms']:.1f}" for row in rows if row.get(kind))
        lines.append(f"| {kind} | {value:.2f} ms | {against} | {paired(kind)} | {each} |" if value
                     else f"| {kind} | — | — | — | |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help=f"of benchmarks/gpu/loops.py: {', '.join(MODELS)} (default: llama gpt2)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--kinds", default="alone,timed,traced",
                        help=f"of {', '.join(KINDS)}, in this order (default: alone,timed,traced)")
    options = parser.parse_args()
    options.models = options.models or ["llama", "gpt2"]
    unknown = [name for name in options.models if name not in MODELS]
    if unknown:  # argparse's choices reject an empty nargs="*" list on Python 3.11: checked here
        parser.error(f"unknown model {unknown[0]!r} (choose from {', '.join(MODELS)})")
    kinds = tuple(options.kinds.split(","))
    if "alone" not in kinds or not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: some of {', '.join(KINDS)}, alone among them (the others are set against it)")
    out = Path(os.environ.get("OUT") or ".")
    began, results, report = time.monotonic(), {}, []
    for index, model in enumerate(options.models):  # in turn, on one GPU: each model its share of the deadline
        until = began + DEADLINE * (index + 1) / len(options.models)
        results[model] = check(model, kinds, options.rounds, options.steps, options.timeout, until)
        report += summary(model, kinds, results[model])
        (out / "eager_check.json").write_text(json.dumps(results, indent=1))
    (out / "eager_check.md").write_text("\n".join(report))
    print("\n".join(report))


if __name__ == "__main__":
    main()
