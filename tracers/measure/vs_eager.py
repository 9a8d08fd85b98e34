"""``--vs-eager``: run the traced script again in a fresh process with compile off, and keep its call timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tracers.capture.child_handoff import ENV as CHILD_ENV
from tracers.tracefile.scrub import scrub
from tracers.tracefile.speed import EAGER, SpeedRecord, TimedRun

from .eager_run import COMPILE_OFF

_TAIL = 600  # characters of the eager run's own output kept when it failed


def run_eager(script: str, args: list[str], module: bool, device: str, keep_paths: bool) -> TimedRun:
    """The eager run's timings. Its output is not shown (the script's output is the traced run's); a run that
    failed or was stopped is returned with its status and the end of its output as the note. Its paths are as the
    saved trace has the compiled run's (``keep_paths``: as they are; else tracefile/scrub.py's placeholders), so that
    each compiled object meets its eager twin by its site."""
    env = {key: value for key, value in os.environ.items() if key != CHILD_ENV}  # not one of the traced run's children
    env.update(COMPILE_OFF)
    with tempfile.TemporaryDirectory(prefix="tracers-eager-") as scratch:
        out, log = Path(scratch, "eager.json"), Path(scratch, "output.txt")
        command = [sys.executable, "-m", "tracers.measure.eager_run", str(out), device, *(["-m"] if module else []),
                   script, *args]
        with log.open("wb") as sink:
            try:
                code = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                      env=env, check=False).returncode
            except KeyboardInterrupt:  # Ctrl-C reached the eager run too: the traced run's trace is still written
                return TimedRun(EAGER, (), status="interrupted", exit_code=None, note="interrupted by Ctrl-C")
        output = log.read_text(encoding="utf-8", errors="replace")
        if not out.exists():
            return TimedRun(EAGER, (), status="failed", exit_code=code,
                            note=f"the eager run wrote no timings (exit {code}): {output[-_TAIL:].strip()}")
        timings = out.read_text(encoding="utf-8")
        run = TimedRun.from_json(json.loads(timings if keep_paths else scrub(timings)))
    if run.status not in ("ok", "exit"):
        run = TimedRun(EAGER, run.functions, run.timer, run.status, run.exit_code,
                       f"{run.note or run.status}: {output[-_TAIL:].strip()}")
    return run


def with_eager(runtime: dict | None, eager: TimedRun) -> dict | None:
    """``RunInfo.runtime`` with the eager run set beside the compiled one."""
    record = SpeedRecord.from_json(runtime)
    if record is None:
        return None
    return SpeedRecord(record.compiled, eager, record.profiles, record.profile_note).as_json()
