"""`python -m tracers measure EXAMPLE`: check the options, run the plan with a progress line, write JSON and plots."""

from __future__ import annotations

import ast
import signal
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from tracers.vocabulary.durations import duration_s
from tracers.vocabulary.progress import ProgressLine
from tracers.vocabulary.releases import public_version
from tracers.vocabulary.usage import UsageError, check_writable

from .measurement import CUDA_GRAPH_MODES, EAGER, MODES, Measurement, Run, Settings, summarize, write_atomic
from .plots import write_plots
from .runs import Runner, load_average, machine_facts, plan
from .svgplot import format_value
from .table import render_text

DEFAULT_BATCH_SIZES = "1,16,256,4096"
DEFAULT_OUT = "docs/_measure"


@dataclass(frozen=True)
class MeasureOptions:
    example: str
    device: str = "cpu"
    batch_sizes: str = DEFAULT_BATCH_SIZES
    modes: str = ""  # empty: default, and reduce-overhead on CUDA
    backend: str = "inductor"
    repeats: int = 20
    warmup: int = 5
    warm: bool = True
    out: str = DEFAULT_OUT
    run_timeout: float = 600.0
    threads: int = 0  # torch's CPU threads in each run; 0: torch's default


def parse_batch_sizes(text: str) -> tuple[int, ...]:
    sizes = []
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        if not part.isdigit() or int(part) < 1:
            raise UsageError(f"--batch-sizes: {part!r} is not a positive whole number (e.g. --batch-sizes 1,64,4096)")
        sizes.append(int(part))
    if not sizes:
        raise UsageError("--batch-sizes: no batch size given (e.g. --batch-sizes 1,64,4096)")
    return tuple(sorted(set(sizes)))


def parse_modes(text: str, device: str, backend: str) -> tuple[str, ...]:
    """Eager first (speedups are against it), then the compiled modes asked for, in MODES order."""
    asked = [piece.strip() for piece in text.split(",") if piece.strip()]
    if not asked:
        asked = ["default", "reduce-overhead"] if device == "cuda" else ["default"]
    unknown = [mode for mode in asked if mode not in MODES]
    if unknown:
        raise UsageError(f"--modes: unknown mode {unknown[0]!r}; choose from {', '.join(MODES)}")
    if device != "cuda":
        graphs = [mode for mode in asked if mode in CUDA_GRAPH_MODES]
        if graphs:
            raise UsageError(f"--modes: {graphs[0]} records CUDA graphs and needs --device cuda")
    if backend != "inductor":
        tuned = [mode for mode in asked if mode not in (EAGER, "default")]
        if tuned:
            raise UsageError(f"--modes: {tuned[0]} is a mode of the inductor backend, not of --backend {backend}")
    return tuple(mode for mode in MODES if mode == EAGER or mode in asked)


def check_example(path: str) -> Path:
    """The example must be a Python file with a top-level ``build`` function (read, not run)."""
    example = Path(path)
    if example.suffix != ".py":
        raise UsageError(f"{path}: not a Python file (expected EXAMPLE.py defining build(batch_size))")
    try:
        tree = ast.parse(example.read_bytes(), filename=path)
    except OSError as error:
        raise UsageError(f"{path}: cannot read it ({error.strerror or error})") from None
    except SyntaxError as error:
        raise UsageError(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
    if not any(isinstance(node, ast.FunctionDef) and node.name == "build" for node in tree.body):
        raise UsageError(f"{path}: no top-level build(batch_size) function; it must return (callable, args)")
    return example


def _check_torch(device: str, backend: str) -> str:
    try:
        import torch
    except ImportError as error:
        raise UsageError(f"torch is not importable in this Python ({sys.executable}): {error}") from None
    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError(f"--device cuda: no CUDA GPU is available to this torch ({torch.__version__}, "
                         f"built with CUDA {torch.version.cuda or 'none'})")
    import torch._dynamo

    backends = torch._dynamo.list_backends(exclude_tags=())
    if backend not in backends:
        raise UsageError(f"--backend: unknown backend {backend!r}; this torch has {', '.join(sorted(backends))}")
    return torch.__version__


def _outcome(run: Run) -> str:
    if not run.ok:
        return f"failed in {run.phase or 'the process'}: {run.error}"
    parts = [f"first call {format_value(run.first_call_s, 'seconds')}"] if run.first_call_s is not None else []
    if run.steady is not None:
        parts.append(f"{format_value(run.steady.median_s, 'seconds')} a call")
    if run.recompiled:
        parts.append("RECOMPILED while timing")
    return "ok: " + ", ".join(parts) if parts else "ok"


def run_measure(options: MeasureOptions, argv: tuple[str, ...] = (), stream: TextIO = sys.stderr) -> int:
    """0: every run finished; 1: some failed (the file says which); 130: interrupted; UsageError: bad input."""
    example = check_example(options.example)
    batch_sizes = parse_batch_sizes(options.batch_sizes)
    if options.repeats < 1:
        raise UsageError(f"--repeats: {options.repeats} is too few; at least 1 timed sample is needed")
    if options.warmup < 0:
        raise UsageError(f"--warmup: {options.warmup} is negative")
    if options.threads < 0:
        raise UsageError(f"--threads: {options.threads} is negative")
    if options.run_timeout <= 0:
        raise UsageError(f"--run-timeout: {options.run_timeout:g} is not a positive number of seconds")
    modes = parse_modes(options.modes, options.device, options.backend)
    torch_version = _check_torch(options.device, options.backend)
    out_dir = Path(options.out) / options.device / public_version(torch_version)
    check_writable(out_dir)
    json_path = out_dir / f"{example.stem}.json"

    settings = Settings(options.backend, modes, batch_sizes, options.repeats, options.warmup, options.warm,
                        options.threads)
    planned = plan(settings)
    machine = machine_facts(options.device)
    started, clock = datetime.now(timezone.utc), time.monotonic()
    measurement = Measurement(
        example=example.stem, script=example.as_posix(), device=options.device, machine=machine, settings=settings,
        runs=(), results=(), status="partial", command=("python", "-m", "tracers", *argv),
        started=started.isoformat(timespec="seconds"),
    )
    stream.write(f"Measuring {example.stem} on {options.device} with torch {torch_version}: {len(planned)} runs, "
                 f"each in a fresh process, into {out_dir}/\n")
    runner = Runner(str(example), options.device, settings, options.run_timeout)
    line = ProgressLine(stream)  # on a terminal it counts the seconds of each run
    runs: list[Run] = []
    status = "complete"
    previous = _stop_on_sigterm()
    try:
        for index, item in enumerate(planned, 1):
            line.start(f"[{index}/{len(planned)}] {item.label}")
            run = runner.run(item)
            line.finish(f"{_outcome(run)} ({duration_s(line.elapsed_s)})")
            runs.append(run)
            measurement = _updated(measurement, runs, "partial", clock)
            write_atomic(measurement, json_path)  # after every run: a crash later still leaves these
            if not run.ok and run.phase == "import":
                stream.write(f"measure: {example} cannot be imported; the remaining runs would fail the same way\n")
                status = "partial"
                break
    except KeyboardInterrupt:
        line.finish(f"interrupted ({duration_s(line.elapsed_s)})")
        status = "interrupted"
    finally:
        runner.close()
        signal.signal(signal.SIGTERM, previous)
    if status == "complete" and any(not run.ok for run in runs):
        status = "partial"
    measurement = _updated(measurement, runs, status, clock)
    load = load_average()
    if load is not None:
        measurement = replace(measurement, machine={**measurement.machine, "load_average_after": load})
    measurement = replace(measurement, plots=write_plots(measurement, json_path))
    write_atomic(measurement, json_path)
    print(render_text(measurement))
    failed = [run for run in runs if not run.ok]
    for run in failed:
        stream.write(f"measure: {run.mode} at batch size {run.batch_size} ({run.cache}) failed in {run.phase}: "
                     f"{run.error}\n")
    written = ", ".join(plot.file for plot in measurement.plots)
    stream.write(f"Wrote {json_path} and beside it {written} ({duration_s(measurement.seconds)})\n")
    if status == "interrupted":
        return 130
    return 1 if failed or status != "complete" else 0


def _stop_on_sigterm():  # noqa: ANN202 - the previous handler, of any kind signal accepts
    """``timeout`` and schedulers end a job with SIGTERM: stop like Ctrl-C, so the charts are still written."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


def _updated(measurement: Measurement, runs: list[Run], status: str, clock: float) -> Measurement:
    machine = dict(measurement.machine)
    named = next((run.device_name for run in runs if run.device_name), "")
    if named:
        machine["device_name"] = named
    settings = measurement.settings
    return replace(measurement, runs=tuple(runs), results=summarize(runs, settings.modes, settings.batch_sizes),
                   status=status, machine=machine, seconds=round(time.monotonic() - clock, 1))

