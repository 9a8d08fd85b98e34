"""Run one tool's steps, each in a fresh process with an empty compile cache, a timeout and its wall and CPU time."""

from __future__ import annotations

import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .tools import ARGS, EXAMPLE, OUT, PYTHON, Newest, Step, Tool, on_device

# Settings a user's shell may carry that would change what a tool shows; every run starts without them.
_CLEARED_ENV = (
    "TORCH_LOGS", "TORCH_LOGS_OUT", "TORCH_LOGS_FORMAT", "TORCH_TRACE", "TORCH_COMPILE_DEBUG",
    "TORCH_COMPILE_DEBUG_DIR", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_FX_GRAPH_CACHE",
    "TORCHINDUCTOR_AUTOGRAD_CACHE", "TORCHINDUCTOR_FORCE_DISABLE_CACHES",
)
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # holds walkthrough/ and tracers/: the drivers' home


@dataclass(frozen=True)
class StepRun:
    label: str
    command: str  # as a user would type it, with <out> for the tool's directory
    runs_example: bool
    exit_code: int | None  # None: it could not start, or ran out of time
    wall_s: float
    cpu_s: float  # user + system time of the process and the children it waited for
    stdout: str
    stderr: str
    error: str | None = None  # one line when the step failed


@dataclass(frozen=True)
class ToolRun:
    tool: Tool
    out: Path  # everything the tool wrote
    steps: tuple[StepRun, ...]

    @property
    def error(self) -> str | None:
        return next((step.error for step in self.steps if step.error), None)


@dataclass(frozen=True)
class Setting:
    """What every tool runs on: the example, its arguments, the device, a time limit per step."""

    example: str
    args: tuple[str, ...] = ()
    device: str = "cpu"
    timeout_s: float = 600.0


SHOWN_OUT = "$OUT"  # the tool's directory in a displayed command: it runs as is once OUT is set
_PLAIN_WORD = re.compile(r"[\w@%+=:,./$*-]+")


def display(step: Step, setting: Setting) -> str:
    """The step as a shell command, with ``$OUT`` for the tool's directory."""
    words = [f"{name}={value}" for name, value in step.env]
    for word in step.argv:
        if isinstance(word, Newest):
            words.append(f"{OUT}/{word.pattern}")
        elif word == PYTHON:
            words.append("python")
        elif word == EXAMPLE:
            words.append(setting.example)
        elif word == ARGS:
            words.extend(setting.args)
        else:
            words.append(word)
    # Quoted only where a shell needs it; $OUT and the glob are meant to be expanded.
    return " ".join(word.replace(OUT, SHOWN_OUT) if _PLAIN_WORD.fullmatch(word.replace(OUT, SHOWN_OUT))
                    else shlex.quote(word) for word in words)


def _argv(step: Step, setting: Setting, out: Path) -> list[str]:
    argv: list[str] = []
    for word in step.argv:
        if isinstance(word, Newest):
            found = sorted(out.glob(word.pattern), key=lambda path: path.stat().st_mtime)
            if not found:
                raise FileNotFoundError(f"no file matching {OUT}/{word.pattern} was written")
            argv.append(str(found[-1]))
        elif word == PYTHON:
            argv.append(sys.executable)
        elif word == EXAMPLE:
            argv.append(setting.example)
        elif word == ARGS:
            argv.extend(setting.args)
        else:
            argv.append(word.replace(OUT, str(out)))
    return argv


def _environment(step: Step, out: Path, cache: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in _CLEARED_ENV}
    # An empty cache directory per tool: nothing is reused from an earlier tool or an earlier recording.
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    env["TRITON_CACHE_DIR"] = str(cache / "triton")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
    env.update((name, value.replace(OUT, str(out))) for name, value in step.env)
    return env


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def _run_step(step: Step, setting: Setting, out: Path, cache: Path) -> StepRun:
    command = display(step, setting)
    try:
        argv = _argv(step, setting, out)
    except FileNotFoundError as error:
        return StepRun(step.label, command, step.runs_example, None, 0.0, 0.0, "", "", str(error))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    try:
        # Its own session, so a timeout can stop the compile workers the example started too.
        process = subprocess.Popen(argv, cwd=os.getcwd(), env=_environment(step, out, cache), text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                   errors="replace")
    except OSError as error:
        return StepRun(step.label, command, step.runs_example, None, 0.0, 0.0, "", "",
                       f"cannot start {argv[0]}: {error.strerror or error}")
    error = None
    try:
        stdout, stderr = process.communicate(timeout=setting.timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = process.communicate()
        error = f"timed out after {setting.timeout_s:.0f} s"
    except BaseException:  # Ctrl-C: take the whole process group down with us
        _kill_group(process)
        process.wait()
        raise
    wall_s = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    code = None if error else process.returncode
    if error is None and process.returncode != 0:
        error = f"exit {process.returncode}: {_last_line(stderr)}"
    return StepRun(step.label, command, step.runs_example, code, wall_s, cpu_s, stdout, stderr, error)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def warm_up(setting: Setting) -> None:
    """Import torch's compiler once, untimed: the first process to read torch from disk is slower than the
    rest, and that must not count against the plain run everything is compared with."""
    code = "import torch._dynamo, torch._inductor.compile_fx"
    subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=setting.timeout_s, check=False)


def run_tool(tool: Tool, setting: Setting, root: Path, name: str = "") -> ToolRun:
    """Every step of the tool in order, stopping at the first that fails; output under ``root/<name>``
    (default: the tool's id), with an empty cache directory of that name too."""
    out = root / (name or tool.id)
    out.mkdir(parents=True, exist_ok=True)
    cache = root / "_cache" / (name or tool.id)
    runs: list[StepRun] = []
    for step in tool.steps:
        run = _run_step(on_device(step, setting.device), setting, out, cache)
        runs.append(run)
        if run.error:
            break
    return ToolRun(tool, out, tuple(runs))
