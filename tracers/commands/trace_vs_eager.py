"""``trace --vs-eager``: the traced run in a process of its own, the eager run only once that process has gone.

The eager run is the script again with compile off, timed as a fresh process. Started from inside the traced
process, it shared the machine with what that process still held (on a GPU: its CUDA context, its cached and live
memory, its compile workers), and read slower than the loop alone in most rounds on an H200 (benchmarks/RESULTS.md).
So this process, holding neither torch nor CUDA, runs the traced run as its child (``trace --hand-off FILE``, the
same command line otherwise), then the eager run, then sets the eager timings into the saved trace and prints the
summary and writes the page as the traced run would have. The exit status is the traced run's: the script's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tracers.analysis.report_model import build_report
from tracers.capture.launcher import RankEnvironmentError, detect, leads_output
from tracers.capture.options import TraceOptions
from tracers.measure.vs_eager import run_eager, with_eager
from tracers.report.save import save_over
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.chrome import TraceFileError, load
from tracers.tracefile.events import Trace
from tracers.vocabulary.signals import killed_by, signal_name
from tracers.vocabulary.usage import UsageError

from .browser import show
from .say import say
from .trace_run import HandOff, die_by, ignore_sigint, print_summary

# Signals a scheduler or a shell sends the process it started (this one) and not its children: passed on, so the
# traced run stops as it would have alone. Ctrl-C reaches every process of the terminal's group by itself.
_PASSED_ON = (signal.SIGTERM, signal.SIGHUP)


@dataclass(frozen=True)
class Handed:
    """What the traced run hands over instead of its summary: its saved trace, the files it wrote, the line on its
    child processes, and its process id (the trace's, kept when the trace is written again)."""

    trace: str
    written: list[str]
    elsewhere: str | None
    pid: int

    @staticmethod
    def read(path: Path) -> Handed | None:
        """None where the traced run handed nothing over (it ended by a signal or ``os._exit``, or never began)."""
        try:
            return Handed(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None


def hand_off_to(path: Path) -> HandOff:
    """The traced run's side: what it saved, written to ``path`` for the process that started it."""

    def hand_off(trace: Path, written: list[str], elsewhere: str | None) -> None:
        handed = Handed(str(trace), written, elsewhere, os.getpid())
        write_text_atomic(path, json.dumps(handed.__dict__))

    return hand_off


def check_one_process(options: TraceOptions) -> None:
    """``--vs-eager`` beside several ranks is refused, in one line: its eager run is the script again as one fresh
    process, and ranks run again one by one would each wait for the others in their process group."""
    try:
        ranks = detect()
    except RankEnvironmentError:
        ranks = None  # trace_run.py says what is wrong with the launcher's variables
    if options.nproc is not None or (ranks is not None and ranks.world_size > 1):
        raise UsageError("--vs-eager runs the script again as one process with compile off, which a run of several "
                         "ranks cannot be: trace the ranks without it, or time the loop on one process")


def run_with_eager(options: TraceOptions, argv: list[str]) -> int:
    """The traced run (``argv``: ``trace``'s command line), then the eager run, then the summary; the traced run's
    exit status, or its death by the same signal."""
    with tempfile.TemporaryDirectory(prefix="tracers-vs-eager-") as scratch:
        hand_off = Path(scratch, "handed.json")
        status = _traced_run([*argv[:1], "--hand-off", str(hand_off), *argv[1:]])
        handed = Handed.read(hand_off)
    killed = -status if status < 0 else None
    stopped = killed in (signal.SIGINT, signal.SIGTERM)  # Ctrl-C or a scheduler: no eager run after that
    if handed is None and killed is not None and not stopped:  # by Ctrl-C or SIGTERM the run said what it saved
        say("trace", f"the traced run was {killed_by(killed)}: no trace was written")
    elif handed is not None and stopped:  # it had saved its trace and was ending when the signal came
        say("trace", f"stopped by {signal_name(killed)} before the eager run: the trace is {handed.trace}, without "
                     "its page")
    elif handed is not None:  # ended by itself (or crashed while ending, after its trace was saved)
        previous = ignore_sigint()  # Ctrl-C stops the eager run alone; its trace and summary still come
        try:
            _add_eager(handed, options)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    if killed is not None:
        die_by(killed)
    return status


def _traced_run(trace_argv: list[str]) -> int:
    """``python -m tracers`` with ``trace_argv`` in a child process, on this terminal; its return code."""
    # The interpreter's own flags (-X, -W, -O) as this process got them, the way multiprocessing passes them on.
    command = [sys.executable, *subprocess._args_from_interpreter_flags(), "-m", "tracers", *trace_argv]
    child: subprocess.Popen | None = None
    pending: list[int] = []

    def pass_on(signum: int, _: object) -> None:
        if child is None:
            pending.append(signum)  # before the child is there: passed on as soon as it is
        else:
            child.send_signal(signum)

    previous = {signum: signal.signal(signum, pass_on) for signum in _PASSED_ON}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child has Ctrl-C too, and says so
    try:
        child = subprocess.Popen(command)
        for signum in pending:
            child.send_signal(signum)
        return child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _add_eager(handed: Handed, options: TraceOptions) -> None:
    """The eager run, its timings set beside the compiled ones in the saved trace; the summary and the page."""
    summary = not options.quiet and leads_output()
    if summary:
        print("trace: --vs-eager: running the script again with compile off…", file=sys.stderr, flush=True)
    eager = run_eager(options.script, options.args, options.module, options.device, options.keep_paths)
    path = Path(handed.trace)
    try:
        trace = load(path)
    except TraceFileError as error:
        say("trace", f"{error}: the eager run's timings are not in it")
        return
    trace.info.runtime = with_eager(trace.info.runtime, eager)
    finish_handed(trace, handed, options)


def finish_handed(trace: Trace, handed: Handed, options: TraceOptions) -> None:
    """The handed trace written again where the traced run saved it, with what came after (eager timings, fix
    checks); then its page, the summary, and the page opened where asked."""
    summary = not options.quiet and leads_output()
    report = build_report(trace) if options.page or summary else None
    page, notes = save_over(trace, report if options.page else None, Path(handed.trace), options.site,
                            options.keep_paths, handed.pid)
    for note in notes:
        say("trace", note)
    print_summary(report if summary else None, [*handed.written, *([str(page)] if page else [])], handed.elsewhere,
                  options)
    sys.stderr.flush()
    if options.open_page and page is not None:
        show(page)  # no browser: one line says so; the exit status stays the script's
