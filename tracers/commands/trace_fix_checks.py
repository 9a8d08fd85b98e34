"""``trace --check-fixes``: the traced run, then the script again once per fix the tracer can apply, each in a fresh
process with that one fix, and what each did set beside its fix in the saved trace, summary and page.

The script runs 1 + (number of fixes) times: it must be one that can run again (nothing it writes trips a second
run). Each run with a fix is traced too (its own trace in a scratch folder, so its graphs, breaks, recompiles and
compile time can be read), with the first run's device, cache mode and arguments; its output is compared with the
first run's. The first run's trace is only added to: its events are unchanged."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tracers.analysis.finding_type import Finding, Remedy
from tracers.analysis.fix_checks import (Counts, FixCheck, counts_of, dearer, finding_label, fixes_to_check,
                                         output_change, verdict)
from tracers.analysis.report_model import build_report
from tracers.capture.options import TraceOptions
from tracers.tracefile.chrome import TraceFileError, load
from tracers.vocabulary.printable import printable_value
from tracers.vocabulary.signals import killed_by
from tracers.vocabulary.usage import UsageError

from .say import say
from .trace_run import die_by, ignore_sigint
from .trace_vs_eager import Handed, finish_handed

MIN_TIMEOUT_S = 120.0  # a run with a fix may compile more than the first did (a fix that does not work)
TIMEOUT_FACTOR = 3.0  # ... so each gets this many times the first run's time, at least MIN_TIMEOUT_S


def check_alone(options: TraceOptions) -> None:
    """--check-fixes runs the script again as one process, with nothing else re-running it."""
    if options.vs_eager:
        raise UsageError("--check-fixes and --vs-eager each run the script again: give one of them at a time")
    if options.nproc is not None:
        raise UsageError("--check-fixes runs the script again as one process, which a run of several ranks cannot "
                         "be: trace the ranks without it")


def run_with_fix_checks(options: TraceOptions, argv: list[str]) -> int:
    """The traced run (``argv``: ``trace``'s command line less --check-fixes), then one run per fix, then the
    summary; the traced run's exit status, or its death by the same signal."""
    with tempfile.TemporaryDirectory(prefix="tracers-check-fixes-") as scratch:
        hand_off = Path(scratch, "handed.json")
        started = time.monotonic()
        first = _run_captured([*argv[:1], "--hand-off", str(hand_off), *argv[1:]], None)
        status = first.code
        took = time.monotonic() - started
        handed = Handed.read(hand_off)
        killed = -status if status is not None and status < 0 else None
        if handed is None:
            say("trace", f"the traced run was {killed_by(killed)}: no trace was written" if killed
                else "the traced run wrote no trace: no fix to check")
        elif killed in (signal.SIGINT, signal.SIGTERM):
            say("trace", f"stopped before the fixes were checked: the trace is {handed.trace}, without its page")
        else:
            limit = options.fix_timeout_s or max(MIN_TIMEOUT_S, TIMEOUT_FACTOR * took)
            _check_all(handed, options, first, limit, Path(scratch))
    if killed is not None:
        die_by(killed)
    return status if status is not None else 1


@dataclass
class _Ran:
    """A child run: its return code (None: stopped at the time limit), and the program's output lines, stdout's and
    stderr's (torch's own log lines and the tracer's left out of stderr's)."""

    code: int | None
    stdout: list[str]
    stderr: list[str]

    @property
    def output(self) -> list[str]:
        return [*self.stdout, *_programs_stderr(self.stderr)]

    def error_line(self, script: str) -> str:
        """``file.py:12``: the last frame of the program's own files in the traceback it printed, if any."""
        own = [found for found in _FRAME.finditer("\n".join(self.stderr)) if not _LIBRARY.search(found.group(1))]
        return f"{Path(own[-1].group(1)).name}:{own[-1].group(2)}" if own else ""


# torch's logging lines (``W1201 22:12:36.918000 5861 torch/_dynamo/…``) and the tracer's own ("trace: …", the paths
# --quiet prints) are no output of the program's: they differ with the compiles a fix changes.
_NOT_THE_PROGRAMS = re.compile(r"^(?:[IWEDC]\d{4} \d\d:\d\d:\d\d|trace: |\S+\.(?:json|html)$)")
# Python's warnings (``…/modeling_utils.py:12: FutureWarning: …``, then the warning's source line, indented): a
# library warns once per process from the code that runs, so an eager fallback fixed away takes its warning along
_WARNING = re.compile(r"^\S.*:\d+: [A-Z]\w*Warning: ")
_FRAME = re.compile(r'^  File "([^"]+)", line (\d+)', re.M)
_LIBRARY = re.compile(r"site-packages|dist-packages|/torch/|/tracers/|^<")


def _programs_stderr(lines: list[str]) -> list[str]:
    """stderr's lines less torch's log lines, the tracer's own, and Python's warnings with their source lines."""
    kept, in_warning = [], False
    for line in lines:
        if _WARNING.match(line):
            in_warning = True
            continue
        if in_warning and line.startswith((" ", "\t")):
            continue
        in_warning = False
        if not _NOT_THE_PROGRAMS.match(line):
            kept.append(line)
    return kept


def _run_captured(trace_argv: list[str], timeout: float | None, echo: bool = True) -> _Ran:
    """``python -m tracers`` with ``trace_argv`` in a child; its stdout and stderr passed on (``echo``) and kept.
    Stopped past ``timeout``. Ctrl-C reaches the child first (one terminal): this process waits for it."""
    command = [sys.executable, *subprocess._args_from_interpreter_flags(), "-m", "tracers", *trace_argv]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 errors="replace", bufsize=1)
        streams = {"stdout": [], "stderr": []}
        readers = [threading.Thread(target=_read, args=(getattr(child, name), streams[name],
                                                        getattr(sys, name) if echo else None), daemon=True)
                   for name in streams]
        for reader in readers:
            reader.start()
        try:
            code: int | None = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            code = None
        for reader in readers:
            reader.join(timeout=5)
        return _Ran(code, streams["stdout"], streams["stderr"])
    finally:
        signal.signal(signal.SIGINT, previous)


def _read(stream, lines: list[str], echo) -> None:  # noqa: ANN001 - a pipe, and a terminal stream or None
    for line in stream:
        lines.append(line.rstrip("\n"))
        if echo is not None:
            echo.write(line)
            echo.flush()


def _command(options: TraceOptions, folder: Path, fix: dict | None) -> list[str]:
    """``trace``'s command line for a run of the script with ``fix`` (None: none, the control run)."""
    return ["trace", "--quiet", "--no-page", "--no-code", "--out", str(folder), "--cache", options.cache,
            "--device", options.device, *(["--apply-fix", json.dumps(fix)] if fix is not None else []),
            *(["-m"] if options.module else []), options.script, *options.args]


def _check_all(handed: Handed, options: TraceOptions, first: _Ran, timeout: float, scratch: Path) -> None:
    path = Path(handed.trace)
    try:
        trace = load(path)
    except TraceFileError as error:
        say("trace", f"{error}: no fix checked")
        return
    todo = fixes_to_check(build_report(trace).findings)
    if not todo:
        say("trace", "--check-fixes: no finding has a fix the tracer can apply by itself (the others change your code)")
    ran: list[tuple[Finding, Remedy, Path, _Ran]] = []
    control: _Ran | None = None
    eager: _Ran | None = None
    try:
        for number, (finding, remedy) in enumerate(todo, 1):
            say("trace", f"checking fix {number} of {len(todo)}: {remedy.said} …")
            folder = scratch / f"fix{number}"
            ran.append((finding, remedy, folder, _run_captured(_command(options, folder, remedy.as_json()), timeout,
                                                               echo=False)))
        # a run that ended as the first did but printed otherwise: is it the fix, or does the output vary anyway?
        if any(done.code == first.code and done.output != first.output for *_, done in ran):
            say("trace", "--check-fixes: running the script once more without any fix, to tell what varies from "
                         "run to run, and once with compile off, to tell which output is the program's own …")
            control = _run_captured(_command(options, scratch / "control", None), timeout, echo=False)
            eager = _run_eager(options, timeout)
    except KeyboardInterrupt:
        say("trace", f"--check-fixes stopped by Ctrl-C: {len(ran)} of {len(todo)} fixes checked")
    before = counts_of(trace)
    checks = [_checked(finding, remedy, folder, done, first, control, eager, before, timeout)
              for finding, remedy, folder, done in ran]
    for number, check in enumerate(checks, 1):
        say("trace", f"  fix {number}: {printable_value(check.said)}")
    trace.info.fix_checks = [check.as_json() for check in checks]
    previous = ignore_sigint()  # the checks made are written whatever comes now
    try:
        finish_handed(trace, handed, options)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _run_eager(options: TraceOptions, timeout: float) -> _Ran | None:
    """The script with compile off (``TORCHDYNAMO_DISABLE=1``), untraced: the output it prints is the program's own."""
    command = [sys.executable, *subprocess._args_from_interpreter_flags(),
               *(["-m", options.script] if options.module else [options.script]), *options.args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=timeout,
                              env={**os.environ, "TORCHDYNAMO_DISABLE": "1"})
    except (subprocess.TimeoutExpired, OSError):
        return None
    return _Ran(done.returncode, done.stdout.splitlines(), done.stderr.splitlines())


def _checked(finding: Finding, remedy: Remedy, folder: Path, done: _Ran, first: _Ran, control: _Ran | None,
             eager: _Ran | None, before: Counts, timeout: float) -> FixCheck:
    """What the run with ``remedy`` did, from its trace and output."""
    label = finding_label(finding)
    varies = control.output if control and control.code is not None else None
    change = output_change(first.output, done.output, varies)
    # the fixed run prints what the program prints without compile, where the first run did not: the fix mended it
    mended = eager is not None and eager.code == done.code and not change.same and \
        output_change(eager.output, done.output, varies).same and not output_change(eager.output, first.output,
                                                                                    varies).same
    traces = sorted(folder.glob("*.json")) if folder.is_dir() else []
    fixed = None
    if traces:
        try:
            fixed = load(traces[0])
        except TraceFileError:
            fixed = None
    if done.code is None:
        return FixCheck(remedy.as_json(), remedy.key, "timed out", label, None, asdict(before), {},
                        note=f"stopped after {timeout:.0f} s")
    after = counts_of(fixed) if fixed is not None else None
    applied = bool(fixed is not None and (fixed.info.applied_fix or {}).get("applied"))
    gone = fixed is not None and all(finding_label(other) != label for other in build_report(fixed).findings)
    result = verdict(before, after, first.code or 0, done.code, change, gone, applied,
                     remedy.changes_output or mended)
    error = ((fixed.info.error or "") if fixed is not None else "").splitlines()
    where = done.error_line("") if result == "worse" else ""
    said_error = (error[0][:200] if error else "") + (f" (at {where})" if where else "")
    note = "" if applied or result == "worse" else \
        "the run left no trace" if fixed is None else "the run never reached what the fix changes"
    if mended:
        note = "its output is now the program's with compile off (TORCHDYNAMO_DISABLE=1), which the first run's was not"
    elif result == "works" and remedy.changes_output and not change.same:
        note = "its output changed, as this fix means it to"
    if after is not None and result == "helps" and gone and dearer(before, after):
        note = "but compiling took markedly longer"
    return FixCheck(remedy.as_json(), remedy.key, result, label, done.code, asdict(before),
                    asdict(after) if after else {}, asdict(change), said_error, gone, note)
