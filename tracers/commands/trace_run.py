"""`python -m tracers trace`: run a script under the tracer, write the trace, print the summary."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tracers.capture import late_exit, shadowed
from tracers.capture.after_script import TRACER_DEPTH, tracer_footing
from tracers.capture.child_handoff import ChildSpec, children_dir, children_traced, new_run_id
from tracers.capture.exec_watch import execs_handled
from tracers.capture.launcher import RankEnvironmentError, detect, leads_output
from tracers.capture.options import TraceOptions, check_program, check_session, prepared_session
from tracers.capture.progress import Progress
from tracers.capture.runner import Outcome, ScriptError, hard_exits_handled, outcome_of, run_program
from tracers.analysis.report_model import Report, build_report
from .browser import show
from .noise import ProfilerNoiseFiltered
from .say import say
from .trace_launch import launch
from tracers.ranks.output import write_run
from tracers.ranks.processes import gather
from tracers.report.links import chapter_links
from tracers.report.save import save_over, save_report, save_trace
from tracers.terminal.summary import render_report, style_for
from tracers.tracefile.events import rank_of
from tracers.tracefile.names import TraceName, claim_name, inside, release_name
from tracers.vocabulary.usage import check_writable


@dataclass(frozen=True)
class _Run:
    """This run among others: the name its files take, when it began, what its child processes are told."""

    name: TraceName  # the script's name, or a distinct one while another run holds that (tracefile/names.py)
    started: float
    children: ChildSpec


def _start_run(options: TraceOptions) -> _Run:
    """Claim the run's name as it starts: its child processes are told it, and a later run steps aside."""
    started = time.time()
    try:
        env = detect()
    except RankEnvironmentError:
        env = None
    out = Path(options.out)
    name = claim_name(out, TraceName(options.run_name, options.device, options.cache,
                                     env.rank if env is not None else None), started)
    run_id = new_run_id()
    spec = ChildSpec(str(children_dir(out, run_id)), name.run, run_id, started, device=options.device,
                     cache=options.cache, keep_code=options.keep_code, deep_min_us=options.deep_min_us,
                     lines=options.lines, inductor_ir=options.inductor_ir, keep_paths=options.keep_paths)
    return _Run(name, started, spec)


# What a traced run under ``--vs-eager`` hands its parent instead of its summary: the saved trace, the files to
# list, and the line on its child processes (trace_vs_eager.py times the eager run once this process has gone).
HandOff = Callable[[Path, list[str], "str | None"], None]


def run_trace(options: TraceOptions, hand_off: HandOff | None = None) -> int:
    """The whole command; returns the process exit code (the script's own). With ``hand_off``: this is the traced
    run of ``--vs-eager``, which saves its trace without a page or a summary and hands them over."""
    if options.nproc is not None:
        return launch(options)
    try:
        program = check_program(options)
    except ScriptError as error:
        say("trace", error)
        return error.exit_code
    check_writable(Path(options.out))
    progress = Progress(sys.stderr)
    progress.enabled = progress.enabled and leads_output()  # one spinner per terminal, not one per rank
    command = [sys.executable, "-m", "tracers", "trace", *(["-m"] if options.module else []), options.script,
               *options.args]
    check_session(options.session)  # before this run claims its name: a bad option must leave nothing behind
    run = _start_run(options)
    traced_pid, depth = os.getpid(), max(sys.getrecursionlimit(), TRACER_DEPTH)  # as they are before the script
    after = contextlib.ExitStack()  # the tracer's footing once the script is done (after_script.py), to the end
    with after:
        with prepared_session(options.session, command, [progress]) as session, children_traced(run.children):
            outcome = outcome_of(KeyboardInterrupt())  # what stands if Ctrl-C lands in our own code
            quiet_profiler = ProfilerNoiseFiltered(options.session.profile)  # torch's USDT lines off the terminal
            session.start()
            _say_shadowed(program, session)
            finished = False  # the trace was written before the script ended (an exec that then failed)

            def before_hard_exit(code: int) -> None:
                """The script called os._exit(code): nothing after it runs, so the trace is written now."""
                session.info.warnings.append(f"the script ended with os._exit({code}): no cleanup of its own ran")
                with tracer_footing(depth):
                    _finish(session, outcome_of(SystemExit(code)), options, progress, run, hard_exit=True,
                            quiet=quiet_profiler)

            def before_exec(call: str) -> None:
                """The script execs another program (``call``): this process becomes it, so the trace is written now."""
                nonlocal finished
                ending = Outcome("exec", None, f"the script replaced itself with another program ({call}): what that "
                                               "program did is not traced")
                with tracer_footing(depth):
                    _finish(session, ending, options, progress, run, hard_exit=True, quiet=quiet_profiler)
                finished = True

            try:
                quiet_profiler.start()
                with hard_exits_handled(before_hard_exit), execs_handled(before_exec):
                    outcome = run_program(program, options.args)
            finally:
                if os.getpid() != traced_pid:  # a child the script forked, come back here: not the run
                    _end_forked_child(outcome)
                after.enter_context(tracer_footing(depth))
                if finished:
                    status, path = None, None
                    say("trace", "the script's exec failed after its trace was written: what ran after it is not in "
                                 "the trace")
                else:
                    status, path = _finish(session, outcome, options, progress, run, quiet=quiet_profiler,
                                           hand_off=hand_off)
            if status is not None:
                return status
        deep = session.deep
        if outcome.status in DEATH_SIGNALS:
            say("trace", f"{outcome.error}; the partial trace was written to {path}")
    if outcome.status in DEATH_SIGNALS:
        die_by(DEATH_SIGNALS[outcome.status])
    if deep is not None and sys.version_info >= (3, 12):
        _exit_before_finalization(outcome.exit_code)
    return outcome.exit_code


def _say_shadowed(program, session) -> None:  # noqa: ANN001 - capture's Program and TraceSession
    """One line, and a warning in the trace, where the script's folder shadows a module loaded before it ran."""
    folder = program.path.resolve().parent if program.path is not None else Path.cwd()
    names = shadowed.shadowed(folder)
    if names:
        line = shadowed.warning(folder, names)
        session.info.warnings.append(line)
        say("trace", f"note: {line}")


def _end_forked_child(outcome: Outcome) -> None:
    """A process the script forked (os.fork) ran the rest of the script and came back here: it ends as Python would
    end it (its atexit handlers, its exit status) and writes nothing, the trace being its parent's."""
    if outcome.status in DEATH_SIGNALS:
        die_by(DEATH_SIGNALS[outcome.status])
    _exit_before_finalization(outcome.exit_code or 0)


def _finish(session, outcome: Outcome, options: TraceOptions, progress: Progress, run: _Run,
            hard_exit: bool = False, quiet: ProfilerNoiseFiltered | None = None,
            hand_off: HandOff | None = None) -> tuple[int | None, Path | None]:
    """Stop the session, save the trace and its page, gather the child processes' traces, print the summary (or,
    when the eager run follows, ``hand_off`` them). Returns an exit status if writing failed, and where the trace
    went: named for the device the run used and, under a launcher, its rank."""
    # Ctrl-C must not cut the trace in half: hold it off while we finish up (only the main thread can).
    previous = ignore_sigint()
    try:
        session.finish(outcome)
        session.stop()
        if quiet is not None:  # the profiler is closed: the terminal is the summary's again
            quiet.stop()
        progress.clear()
        # The eager run follows only a script that ended by itself, and this process must be gone before it starts.
        eager_next = hand_off is not None and not hard_exit and outcome.status not in DEATH_SIGNALS
        trace, out = session.trace, Path(options.out)
        summary = not options.quiet and leads_output() and not eager_next  # under torchrun: rank 0's alone
        # Analysed once, for the page and the summary alike; a rank's bare trace (no page, no summary) needs none.
        report, fault = _analysed(trace, session.facts, (options.page and not eager_next) or summary)
        # Claimed again for the device the run really used; this process already holds the name it started with.
        saved = _save(trace, report, out, options, run)
        with contextlib.suppress(OSError):  # a folder replaced by a file: no claim there to drop
            release_name(out, run.name)
        if saved.trace is None and not _is_dir(out):  # --out went away during the run (a file took its place)
            saved, out = _saved_elsewhere(trace, report, out, options, run, saved)
        for note in saved.notes:
            say("trace", note)
        if fault is not None:
            say("trace", fault)
        if saved.trace is None:
            say("trace", saved.error)
            return (outcome.exit_code if outcome.exit_code else 2), None
        if not hard_exit and not eager_next:  # an atexit handler's os._exit would end the process otherwise
            late_exit.watch(outcome.exit_code or 0, lambda code: _ended_later(trace, saved.trace, code, options))
        written = [str(saved.trace)]
        children = _gather_children(run, trace, options, saved.name.run, hard_exit, out)
        if children is not None:
            written.extend(map(str, children.written))
        elsewhere = (f"{children.compiled} of its child processes compiled (below)"
                     if children is not None and children.compiled and not trace.spans else None)
        if eager_next:
            hand_off(saved.trace, written, elsewhere)
        else:
            if saved.page is not None:
                written.append(str(saved.page))
            print_summary(report if summary else None, written, elsewhere, options)
        if children is not None:
            _write_processes(children.run, options, run, out)
        sys.stderr.flush()
        if options.open_page and saved.page is not None:
            show(saved.page)  # no browser: one line says so; the exit status stays the script's
        return None, saved.trace
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _analysed(trace, facts, wanted: bool) -> tuple[Report | None, str | None]:  # noqa: ANN001 - the run's Trace, facts
    """The run's report where the page or the summary needs one, and the line that says a fault of the tracer's own
    analysis stopped it: the run's trace is saved all the same, with neither page nor findings."""
    if not wanted:
        return None, None
    try:
        return build_report(trace, facts), None
    except Exception as error:  # noqa: BLE001 - a fault of ours must never lose the run it recorded
        where = traceback.extract_tb(error.__traceback__)[-1]
        return None, (f"tracer fault: the findings could not be made ({type(error).__name__}: {error} at "
                      f"{Path(where.filename).name}:{where.lineno}); the trace is kept without them (please report "
                      "it)")


def _save(trace, report: Report | None, out: Path, options: TraceOptions, run: _Run):  # noqa: ANN001, ANN202
    """The trace (and with a report, its page) saved into ``out`` under the run's name (report/save.py)."""
    if report is not None:
        return save_report(report, out, options.run_name, run.started, page=options.page, site=options.site,
                           keep_paths=options.keep_paths)
    return save_trace(trace, out, options.run_name, run.started, page=False, keep_paths=options.keep_paths)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _saved_elsewhere(trace, report: Report | None, out: Path, options: TraceOptions, run: _Run,  # noqa: ANN001
                     failed) -> tuple:  # noqa: ANN001 - report/save.py's Saved
    """The trace saved in a new temporary folder when ``out`` is no folder any more, and the line that says where;
    or, when that fails too, that the trace was lost (the first failure's Saved, its error saying both)."""
    gone = f"--out {out} is no longer a folder (something replaced it during the run)"
    try:
        elsewhere = Path(tempfile.mkdtemp(prefix=f"tracers-{run.name.run}-"))
        saved = _save(trace, report, elsewhere, options, run)
    except OSError as error:
        return dataclasses.replace(failed, error=f"{gone}, and no temporary folder could hold the trace "
                                                 f"({error.strerror or error}): the trace was lost"), out
    if saved.trace is None:
        return dataclasses.replace(saved, error=f"{gone}; {saved.error}: the trace was lost"), elsewhere
    return dataclasses.replace(saved, notes=(f"{gone}: the trace went to {elsewhere} instead", *saved.notes)), \
        elsewhere


def _ended_later(trace, path: Path, code: int, options: TraceOptions) -> None:  # noqa: ANN001 - the run's Trace
    """An atexit handler ended the process with os._exit(code) after the trace was written: the trace (and its page)
    written again with that status, and one line saying so."""
    ending = outcome_of(SystemExit(code))
    info = trace.info
    info.status, info.exit_code = ending.status, ending.exit_code
    info.warnings.append(f"after the script returned, an atexit handler ended the process with os._exit({code})")
    report = build_report(trace) if options.page else None
    with tracer_footing():
        _, notes = save_over(trace, report, path, options.site, options.keep_paths, os.getpid())
        for note in notes:
            say("trace", note)
        say("trace", f"an atexit handler ended the process with os._exit({code}); {path} says so")
        sys.stderr.flush()


def print_summary(report: Report | None, written: list[str], elsewhere: str | None, options: TraceOptions) -> None:
    """The summary on stderr, the files written under it; without a report (``--quiet``, a rank but the first),
    the files alone."""
    if report is None:
        print("\n".join(written), file=sys.stderr)
        return
    links = chapter_links(options.site, report.trace.info.torch_version)  # the findings link their chapters there
    print(render_report(report, style_for(sys.stderr), written, elsewhere, links, options.tree), file=sys.stderr)
    if rank_of(report.trace.info) is not None:
        print(f"Each rank wrote its own trace; for all of them side by side, divergence first: "
              f"python -m tracers merge {options.out}", file=sys.stderr)


def _gather_children(run: _Run, trace, options: TraceOptions, name: str, hard_exit: bool,  # noqa: ANN001
                     out: Path):
    """The child processes' traces, named and set beside this one (None when no child was traced).

    Python joins the script's non-daemonic multiprocessing children at exit anyway; joining them first lets
    their traces be here (not after an os._exit: the script asked to end now)."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None and not hard_exit:
        for child in multiprocessing.active_children():
            if not child.daemon:
                child.join()
    try:
        return gather(run.children, trace, name, out)
    except Exception as error:  # noqa: BLE001 - the run's own trace is written: say what went wrong, go on
        print(f"trace: the child processes' traces could not be gathered: {type(error).__name__}: {error} "
              f"(they stay in {run.children.directory})", file=sys.stderr)
        return None


def _write_processes(merged, options: TraceOptions, run: _Run, out: Path) -> None:  # noqa: ANN001 - a MergedRun
    """This process and its children on one timeline, ``<name>-<device>-<cache>-processes.json``, and their summary."""
    name = claim_name(out, merged.trace_name, run.started)
    merged = dataclasses.replace(merged, name=name.run)
    write_run(merged, inside(out, name.file_name), options.page, options.quiet or not leads_output(), options.site)
    release_name(out, name)


def ignore_sigint() -> object | None:
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
    with contextlib.suppress(OSError, ValueError):  # a stream the script closed: nothing buffered to lose
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


DEATH_SIGNALS = {"interrupted": signal.SIGINT, "terminated": signal.SIGTERM}


def die_by(signum: int) -> None:
    """End the way Python does on an unhandled Ctrl-C or SIGTERM: killed by that signal, so the
    parent sees the same status as without the tracer (130 or 143 in a shell)."""
    with contextlib.suppress(OSError, ValueError):  # a stream the script closed has nothing of ours to flush
        sys.stdout.flush()
        sys.stderr.flush()
    if signum != signal.SIGKILL:  # it has no handler to reset (a traced run killed outright)
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
