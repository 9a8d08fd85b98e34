"""``trace --nproc N``: run the script on N local ranks through torchrun's own launcher, then merge their traces."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tracers.capture.launcher import RankEnvironmentError, detect
from tracers.capture.options import TraceOptions, check_program
from tracers.capture.runner import ScriptError
from tracers.ranks.merge import MergeError, load_run
from tracers.ranks.output import write_run
from tracers.tracefile.names import inside, parse
from tracers.vocabulary.usage import UsageError, check_writable

from .browser import show
from .say import say

_GRACE_S = 5.0  # after Ctrl-C, how long torchrun may take to stop by itself before it is told to
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)  # where ``tracers`` is importable from


def rank_command(options: TraceOptions) -> list[str]:
    """What each rank runs: this same ``trace`` command minus ``--nproc``, each rank writing only its
    trace (the merged summary and page come after all ranks end)."""
    command = ["-m", "tracers", "trace", "--quiet", "--no-page", "--device", options.device,
               "--cache", options.cache, "--out", options.out]
    if not options.keep_code:
        command.append("--no-code")
    if options.deep_min_us is not None:
        command += ["--deep", "--deep-min-us", str(options.deep_min_us)]
    if options.lines is not None:
        command += ["--lines-lock", options.lines] if options.lines else ["--lines"]
    if options.inductor_ir:
        command.append("--inductor-ir")
    if options.keep_paths:
        command.append("--keep-paths")
    command += ["-m", options.script] if options.module else [options.script]
    return command + list(options.args)


def torchrun_command(options: TraceOptions) -> list[str]:
    # --standalone: a rendezvous on localhost at a free port, so concurrent runs never collide.
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={options.nproc}",
            *rank_command(options)]


def _check(options: TraceOptions) -> None:
    if options.nproc is None or options.nproc < 1:
        raise UsageError(f"--nproc {options.nproc}: give a number of ranks of at least 1")
    try:
        inside = detect()
    except RankEnvironmentError:
        inside = True  # type: ignore[assignment]
    if inside:
        raise UsageError("--nproc inside a distributed launcher (RANK and WORLD_SIZE are set): "
                         "drop --nproc, the launcher already starts one tracer per rank")
    try:
        check_program(options)
    except ScriptError as error:
        raise UsageError(str(error)) from None
    check_writable(Path(options.out))


def launch(options: TraceOptions) -> int:
    """Run torchrun, wait for every rank, merge; returns torchrun's exit status (130 on Ctrl-C)."""
    _check(options)
    environment = {**os.environ,
                   "PYTHONPATH": os.pathsep.join(filter(None, (_PACKAGE_ROOT, os.environ.get("PYTHONPATH"))))}
    command = torchrun_command(options)
    print(f"trace: launching {options.nproc} rank(s) with torchrun: {' '.join(command[1:])}", file=sys.stderr)
    started = time.time()
    try:
        process = subprocess.Popen(command, env=environment)
    except OSError as error:
        raise UsageError(f"cannot start torchrun: {error.strerror or error}") from None
    interrupted = False
    while True:
        try:
            code = process.wait(timeout=_GRACE_S) if interrupted else process.wait()
            break
        except subprocess.TimeoutExpired:
            # Ctrl-C on a terminal reaches torchrun and its ranks too, and they are stopping already;
            # a SIGINT sent to this process alone has not reached them: pass it on, once.
            process.send_signal(signal.SIGINT)
            code = process.wait()
            break
        except KeyboardInterrupt:
            interrupted = True  # the ranks stop and write partial traces; wait for them, then merge
    name = options.script if options.module else Path(options.script).stem
    merged = merge_run(Path(options.out), name, options.cache, options.nproc, since=started, options=options)
    if interrupted:
        return 130
    return code if code else merged


def merge_run(directory: Path, name: str, cache: str, nproc: int, since: float, options: TraceOptions) -> int:
    """After ``trace --nproc``: merge the rank traces this launch wrote (newer than ``since``)."""
    files = []
    for path in sorted(directory.glob(f"{name}-*-{cache}-rank*.json")):
        parsed = parse(path.name)
        if parsed and parsed.run == name and parsed.rank is not None and parsed.rank < nproc \
                and path.stat().st_mtime >= since - 1:
            files.append(path)
    if not files:
        say("trace", f"no rank wrote a trace into {directory}/ (did torchrun start the ranks?)")
        return 1
    try:
        run = load_run(files, world_size=nproc)
    except MergeError as error:
        say("trace", f"cannot merge the ranks' traces: {error}")
        return 1
    target = inside(directory, run.file_name)
    status = write_run(run, target, options.page, options.quiet, options.site)
    if status == 0 and options.open_page and target.with_suffix(".html").exists():
        show(target.with_suffix(".html"))  # no browser: one line says so; the exit status stays the ranks'
    return status
