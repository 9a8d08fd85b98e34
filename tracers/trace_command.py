"""`python -m tracers trace`: run a script under the tracer, write the trace, print the summary."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from tracers.analysis.facts import analyze
from tracers.analysis.summary import render, style_for
from tracers.capture.progress import Progress
from tracers.capture.runner import Outcome, ScriptError, hard_exits_handled, outcome_of, run_program
from tracers.tracefile.chrome import write_atomic
from tracers.tracefile.events import Trace

from .report_command import ReportUnavailable, open_in_browser, write_report
from .setup import TraceOptions, check_program, prepared_session, trace_path
from .usage import check_writable


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
        from tracers.ranks.launch import launch

        return launch(options)
    try:
        program = check_program(options)
    except ScriptError as error:
        print(f"trace: {error}", file=sys.stderr)
        return error.exit_code
    path = trace_path(options)
    check_writable(path.parent)

    from tracers.capture.launcher import leads_output

    progress = Progress(sys.stderr)
    progress.enabled = progress.enabled and leads_output()  # one spinner per terminal, not one per rank
    command = [sys.executable, "-m", "tracers", "trace", *(["-m"] if options.module else []), options.script,
               *options.args]
    with prepared_session(options.session, command, [progress]) as session:
        outcome = outcome_of(KeyboardInterrupt())  # what stands if Ctrl-C lands in our own code
        session.start()

        def before_hard_exit(code: int) -> None:
            """The script called os._exit(code): nothing after it runs, so the trace is written now."""
            session.info.warnings.append(f"the script ended with os._exit({code}): no cleanup of its own ran")
            _finish(session, outcome_of(SystemExit(code)), options, progress)

        try:
            with hard_exits_handled(before_hard_exit):
                outcome = run_program(program, options.args)
        finally:
            status, path = _finish(session, outcome, options, progress)
        if status is not None:
            return status
    deep = session.deep

    if outcome.status in _DEATH_SIGNALS:
        print(f"trace: {outcome.error}; the partial trace was written to {path}", file=sys.stderr)
        _die_by(_DEATH_SIGNALS[outcome.status])
    if deep is not None and sys.version_info >= (3, 12):
        _exit_before_finalization(outcome.exit_code)
    return outcome.exit_code


def _finish(session, outcome: Outcome, options: TraceOptions, progress: Progress) -> tuple[int | None, Path]:
    """Stop the session, write the trace and its page, print the summary. Returns an exit status if writing
    failed, and where the trace went: named for the device the run used and, under a launcher, its rank."""
    from tracers.capture.launcher import leads_output
    from tracers.capture.rank_watch import rank_of

    # Ctrl-C must not cut the trace in half: hold it off while we finish up (only the main thread can).
    previous = _ignore_sigint()
    try:
        session.finish(outcome)
        session.stop()
        progress.clear()
        trace = session.trace
        path = trace_path(options, trace.info.device, rank_of(trace.info))
        try:
            write_atomic(trace, path, keep_paths=options.keep_paths)
        except OSError as error:  # e.g. the disk filled up during the run
            print(f"trace: cannot write {path}: {error.strerror or error}", file=sys.stderr)
            return (outcome.exit_code if outcome.exit_code else 2), path
        written = [str(path)]
        page = _write_page(trace, path, options.site) if options.page else None
        if isinstance(page, Path):
            written.append(str(page))
        elif page:
            session.info.warnings.append(page)
        if options.quiet or not leads_output():  # under torchrun: one summary per run, rank 0's
            print("\n".join(written), file=sys.stderr)
        else:
            print(render(trace, analyze(trace), style_for(sys.stderr), written), file=sys.stderr)
            if rank_of(trace.info) is not None:
                print(f"Each rank wrote its own trace; for all of them side by side, divergence first: "
                      f"python -m tracers merge {options.out}", file=sys.stderr)
        sys.stderr.flush()
        if options.open_page and isinstance(page, Path):
            open_in_browser(page)
        return None, path
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _ignore_sigint() -> object | None:
    try:
        return signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # os._exit from another thread: signals belong to the main thread
        return None


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
