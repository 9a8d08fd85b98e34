"""The script run under one release, in that release's own Python, as often as asked: traces, exit codes, output."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import tracers
from tracers.tracefile.names import process_files
from walkthrough.releases.builds import Build, installed_build
from walkthrough.releases.catalog import installed_release
from walkthrough.releases.venvs import release_python
from walkthrough.source import SourceError

from .model import Run


class CompareError(Exception):
    """The comparison could not be made (a release that cannot be had, a run that left no trace): one line."""


@dataclass(frozen=True)
class Program:
    """What runs, and with which tracer options: the same under both releases."""

    script: str  # a path, or a module name when ``module``
    args: tuple[str, ...]
    module: bool
    device: str
    cache: str

    @property
    def command(self) -> str:
        head = f"-m {self.script}" if self.module else self.script
        return " ".join([head, *self.args])


def interpreter(release: str, build: str) -> tuple[Path, Build]:
    """This Python when its torch is the release in that build, else the release's venv of that build (made once
    from a wheel of that build, then cached)."""
    if installed_release() == release:
        here = installed_build(Path(sys.executable))
        if here is not None and here.kind == build:
            return Path(sys.executable), here
    try:
        return release_python(release, build)
    except SourceError as exc:
        raise CompareError(str(exc)) from None


def _tracer_path(scratch: Path) -> str:
    """A folder holding only the ``tracers`` package (a link to this one): put on the release's path, it adds the
    tracer and nothing else, even when this package sits in a site-packages beside another torch."""
    link = scratch / "tracers"
    if not link.exists():
        link.symlink_to(Path(tracers.__file__).resolve().parent, target_is_directory=True)
    return str(scratch)


def trace_once(python: Path, program: Program, folder: Path, label: str) -> Run:
    """``python -m tracers trace`` in a fresh process; the script's output goes to ``folder/output.txt``."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [str(python), "-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(folder),
               "--device", program.device, "--cache", program.cache,
               *(["-m", program.script] if program.module else [program.script]), *program.args]
    output = folder / "output.txt"
    print(f"{label}: tracing {program.command} ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="compare-path-") as scratch:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_tracer_path(Path(scratch)),
                                                                        os.environ.get("PYTHONPATH")]))}
        started = time.perf_counter()
        with output.open("w", encoding="utf-8") as sink:
            code = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  env=env).returncode
        seconds = time.perf_counter() - started
    traces = process_files(folder)
    if not traces:
        raise CompareError(f"{label}: the tracer wrote no trace (exit {code}); its output is in {output}")
    print(f"{label}: exit {code} in {seconds:.1f} s", file=sys.stderr, flush=True)
    return Run(code, str(traces[-1]), str(output), round(seconds, 3))


def trace_release(release: str, python: Path, program: Program, folder: Path, repeat: int) -> tuple[Run, ...]:
    """The script traced ``repeat`` times under the release (with its ``python``), each run in ``folder/run<N>/``."""
    return tuple(trace_once(python, program, folder / f"run{index}", f"torch {release} run {index}/{repeat}")
                 for index in range(1, repeat + 1))
