"""Running a measurement: which runs, each in a fresh process with its own temp and cache dirs, and the machine's facts."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tracers.vocabulary.signals import killed_by

from .measurement import EAGER, Run, Settings, run_from_dict
from .worker import RunSpec

ROOT = Path(__file__).resolve().parents[2]  # the worker is imported from here, whatever the cwd


@dataclass(frozen=True)
class Planned:
    mode: str
    batch_size: int
    cache: str

    @property
    def label(self) -> str:
        return f"{self.mode} · batch {self.batch_size} · {self.cache}"


def plan(settings: Settings) -> tuple[Planned, ...]:
    """Per batch size: eager once, then each compiled mode cold, and (if asked) fill + warm."""
    runs = []
    for batch in settings.batch_sizes:
        for mode in settings.modes:
            runs.append(Planned(mode, batch, "cold"))
            if mode != EAGER and settings.warm:
                runs += [Planned(mode, batch, "fill"), Planned(mode, batch, "warm")]
    return tuple(runs)


class Runner:
    """Runs planned runs one at a time; fill and warm runs of a mode and batch size share a cache dir."""

    def __init__(self, script: str, device: str, settings: Settings, timeout_s: float):
        self.script, self.device, self.settings, self.timeout_s = script, device, settings, timeout_s
        self._shared: dict[tuple[str, int], str] = {}  # (mode, batch) -> scratch dir of its fill and warm runs

    def run(self, planned: Planned) -> Run:
        key = (planned.mode, planned.batch_size)
        if planned.cache == "cold":
            scratch = tempfile.mkdtemp(prefix="tracers-measure-")
        elif planned.cache == "fill":
            scratch = self._shared[key] = tempfile.mkdtemp(prefix="tracers-measure-")
        else:
            scratch = self._shared.pop(key, "")
            if not scratch:
                return Run(planned.mode, planned.batch_size, "warm", error="no fill run before it", phase="process")
        try:
            return self._spawn(planned, scratch)
        finally:
            if planned.cache != "fill":
                shutil.rmtree(scratch, ignore_errors=True)

    def close(self) -> None:
        """Remove the scratch dirs of fill runs whose warm run never came (interrupted, or it failed)."""
        for scratch in self._shared.values():
            shutil.rmtree(scratch, ignore_errors=True)
        self._shared.clear()

    def _spawn(self, planned: Planned, scratch: str) -> Run:
        result = Path(scratch, "run.json")
        spec = RunSpec(
            script=self.script, mode=planned.mode, batch_size=planned.batch_size, cache=planned.cache,
            device=self.device, backend=self.settings.backend, warmup=self.settings.warmup,
            repeats=self.settings.repeats, result=str(result), cache_dir=scratch,
            steady=planned.cache == "cold", threads=self.settings.threads,
        )
        spec_path = Path(scratch, "spec.json")
        spec_path.write_text(json.dumps(asdict(spec)), encoding="utf-8")
        # Everything torch keeps under the temp dir (Inductor's default cache dir, its precompiled C++ headers)
        # starts empty too: TMPDIR is the run's own scratch dir, shared only by a fill run and its warm run.
        env = {**os.environ, "TMPDIR": scratch, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))}
        try:
            process = subprocess.run([sys.executable, "-m", "tracers.measure.worker", str(spec_path)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, errors="replace", env=env, timeout=self.timeout_s)
            returncode, stderr = process.returncode, process.stderr
        except subprocess.TimeoutExpired as expired:
            # Its output comes as bytes here even in text mode on some Pythons.
            output = expired.stderr or ""
            returncode, stderr = None, output.decode("utf-8", "replace") if isinstance(output, bytes) else output
        run = _read(result) or Run(planned.mode, planned.batch_size, planned.cache)
        if returncode == 0 and run.ok:
            return run
        if run.error:
            return run
        return _with_process_error(run, returncode, stderr, self.timeout_s)


def _read(path: Path) -> Run | None:
    try:
        return run_from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _with_process_error(run: Run, returncode: int | None, stderr: str, timeout_s: float) -> Run:
    """A process that died without saying why in its result: a signal, a timeout, an error outside the phases."""
    if returncode is None:
        message = f"stopped after {timeout_s:g} s (--run-timeout)"
    elif returncode < 0:
        message = killed_by(-returncode)
    else:
        message = f"exit {returncode}"
    last = last_line(stderr)
    return replace(run, error=f"{message}: {last}" if last else message, phase=run.phase or "process")


def last_line(stderr: str) -> str:
    """The last non-empty line of a process's stderr, where Python puts the exception."""
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    return lines[-1][:400] if lines else ""


def machine_facts(device: str) -> dict[str, object]:
    """Which machine and software measured: torch (version, git), Python, CPU or GPU, cores, load."""
    import torch

    from tracers.vocabulary.machine import torch_facts

    facts: dict[str, object] = dict(torch_facts())
    facts["cpu"] = _cpu_model() or platform.processor() or platform.machine()
    facts["cpu_count"] = os.cpu_count() or 0
    facts["torch_threads"] = torch.get_num_threads()  # the default; Settings.threads says if runs set another
    if device == "cuda":
        facts["triton"] = _version_of("triton")
    load = load_average()
    if load is not None:
        facts["load_average"] = load
    return facts


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load: other work on the machine makes timings noisy, and this says how busy it was."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (OSError, AttributeError):  # not on every platform
        return None


def _cpu_model() -> str:
    from tracers.vocabulary.machine import cpu_model as model

    return model()


def _version_of(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return ""

