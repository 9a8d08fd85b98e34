"""`python -m tracers trace`: run a script under the tracer, write the trace, print the summary."""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from .analysis import analyze
from .cachemode import cache_mode
from .chrome import write_atomic
from .deep import DeepTracer, DeepUnavailable
from .devices import device_used, make_default
from .events import Trace
from .lines import LineCounter, watches_from_lock
from .progress import Progress
from .report_command import ReportUnavailable, open_in_browser, write_report
from .runner import Program, ScriptError, check_module, check_script, outcome_of, run_program
from .summary import render, style_for
from .usage import UsageError, check_writable


@dataclass(frozen=True)
class TraceOptions:
    script: str  # a script's path, or with ``module`` set, the module's dotted name
    args: list[str]
    module: bool = False  # run ``script`` as python -m runs a module
    device: str = "cpu"
    cache: str = "cold"
    out: str = "traces"
    keep_code: bool = True
    quiet: bool = False
    deep_min_us: float | None = None  # deep mode: record Python calls at least this long
    lines: str | None = None  # count executed lines: "" for the hooked functions, or a lock file for more
    open_page: bool = False
    site: str | None = None  # the walkthrough the HTML page's chapter links point to
    page: bool = True  # write the HTML page beside the trace
    inductor_ir: bool = False  # keep Inductor's IR before and after fusion
    keep_paths: bool = False  # write this machine's absolute paths as they are
    nproc: int | None = None  # launch the script on this many local ranks (torchrun) and merge their traces


def trace_path(options: TraceOptions, device: str | None = None, rank: int | None = None) -> Path:
    """``<script>-<device>-<cache>.json``; under a distributed launcher ``…-rank<N>.json``, so ranks never
    overwrite each other. ``device`` is what the run really used (tracers/devices.py)."""
    name = options.script if options.module else Path(options.script).stem
    suffix = f"-rank{rank}" if rank is not None else ""
    return Path(options.out) / f"{name}-{device or options.device}-{options.cache}{suffix}.json"


def check_program(options: TraceOptions) -> Program:
    return check_module(options.script) if options.module else check_script(options.script)


def _import_torch():
    try:
        import torch
    except ImportError as error:
        raise UsageError(f"torch is not importable in this Python ({sys.executable}): {error}") from None
    return torch


def _prepare_device(device: str) -> None:
    torch = _import_torch()

    if device == "cuda":
        if not torch.cuda.is_available():
            raise UsageError("--device cuda: no CUDA GPU is available to this torch "
                             f"({torch.__version__}, built with CUDA {torch.version.cuda or 'none'})")
        # Scripts written for the CPU then allocate on the GPU without edits (and Dynamo sees no mode).
        make_default("cuda")


def _note_device_used(trace: Trace, requested: str) -> None:
    used = device_used(requested, trace)
    if used != trace.info.device:
        from . import env

        trace.info.device, trace.info.device_name = used, env.device_description(used)
        trace.info.warnings.append(f"ran on {used}, not --device {requested}: the trace is named for {used}")


def _deep_tracer(min_duration_us: float | None) -> DeepTracer | None:
    if min_duration_us is None:
        return None
    try:
        return DeepTracer(min_duration_us=min_duration_us)
    except DeepUnavailable as error:
        raise UsageError(str(error)) from None


def _line_counter(lock: str | None) -> tuple[LineCounter | None, str | None]:
    """Watches the hooked functions (added as they are patched), plus the lock's spans if given."""
    if lock is None:
        return None, None
    if not lock:
        return LineCounter(), None
    torch = _import_torch()

    watches, warning = watches_from_lock(lock, torch.__version__)
    return LineCounter(watches), warning


def _write_page(trace: Trace, path: Path, site: str | None) -> Path | str:
    """The HTML page beside the trace, or why there is none (the trace itself is what must not be lost)."""
    try:
        return write_report(trace, path, site=site)
    except ReportUnavailable as error:
        return f"no HTML page: {error}"
    except OSError as error:
        return f"no HTML page: cannot write it: {error.strerror or error}"


def run_trace(options: TraceOptions) -> int:
    """The whole command; returns the process exit code (the script's own)."""
    if options.nproc is not None:
        from .ranks.launch import launch

        return launch(options)
    try:
        program = check_program(options)
    except ScriptError as error:
        print(f"trace: {error}", file=sys.stderr)
        return error.exit_code
    path = trace_path(options)
    check_writable(path.parent)

    with cache_mode(options.cache):
        _prepare_device(options.device)  # imports torch after the cache switches are set
        from .ranks.environment import leads_output
        from .ranks.metadata import rank_of
        from .session import TraceSession

        deep = _deep_tracer(options.deep_min_us)
        lines, lines_warning = _line_counter(options.lines)
        progress = Progress(sys.stderr)
        lead_rank = leads_output()
        progress.enabled = progress.enabled and lead_rank  # one spinner per terminal, not one per rank
        command = [sys.executable, "-m", "tracers", "trace", *(["-m"] if options.module else []), options.script,
                   *options.args]
        session = TraceSession(keep_code=options.keep_code, device=options.device,
                               cache_mode=options.cache, command=command, listeners=[progress], deep=deep,
                               lines=lines, inductor_ir=options.inductor_ir)
        if lines_warning:
            session.info.warnings.append(lines_warning)
        outcome = outcome_of(KeyboardInterrupt())  # what stands if Ctrl-C lands in our own code
        session.start()
        try:
            outcome = run_program(program, options.args)
        finally:
            # Ctrl-C must not cut the trace in half: hold it off while we finish up.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                session.finish(outcome)
                session.stop()
                progress.clear()
                trace = session.trace
                _note_device_used(trace, options.device)
                path = trace_path(options, trace.info.device, rank_of(trace.info))
                try:
                    write_atomic(trace, path, keep_paths=options.keep_paths)
                except OSError as error:  # e.g. the disk filled up during the run
                    print(f"trace: cannot write {path}: {error.strerror or error}", file=sys.stderr)
                    return outcome.exit_code if outcome.exit_code else 2
                written = [str(path)]
                page = _write_page(trace, path, options.site) if options.page else None
                if isinstance(page, Path):
                    written.append(str(page))
                elif page:
                    session.info.warnings.append(page)
                if options.quiet or not lead_rank:  # under torchrun: one summary per run, rank 0's
                    print("\n".join(written), file=sys.stderr)
                else:
                    print(render(trace, analyze(trace), style_for(sys.stderr), written), file=sys.stderr)
                    if rank_of(trace.info) is not None:
                        print(f"Each rank wrote its own trace; for all of them side by side, divergence first: "
                              f"python -m tracers merge {options.out}", file=sys.stderr)
                if options.open_page and isinstance(page, Path):
                    open_in_browser(page)
            finally:
                signal.signal(signal.SIGINT, previous)

    if outcome.status in _DEATH_SIGNALS:
        print(f"trace: {outcome.error}; the partial trace was written to {path}", file=sys.stderr)
        _die_by(_DEATH_SIGNALS[outcome.status])
    if deep is not None and sys.version_info >= (3, 12):
        _exit_before_finalization(outcome.exit_code)
    return outcome.exit_code


def _exit_before_finalization(code: int) -> None:
    """Exit as Python does, minus the interpreter's final teardown.

    viztracer 1.1 on Python 3.12 crashes in that teardown (SIGSEGV, exit 139) once a thread it saw
    start is still alive, e.g. the autograd engine's CUDA thread after a backward pass. Waiting for
    the script's threads and running its atexit handlers first keeps everything the script can
    observe; only the crash, and the exit status it would have replaced, are avoided."""
    import atexit
    import threading

    threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter does first on exit
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_DEATH_SIGNALS = {"interrupted": signal.SIGINT, "terminated": signal.SIGTERM}


def _die_by(signum: int) -> None:
    """End the way Python does on an unhandled Ctrl-C or SIGTERM: killed by that signal, so the
    parent sees the same status as without the tracer (130 or 143 in a shell)."""
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
