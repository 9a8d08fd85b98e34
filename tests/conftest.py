"""Shared fixtures: each example is traced once per test session, in a fresh process, through the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

import pytest

from tracers.analysis.claim_check import check
from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.tracefile.chrome import load
from tracers.tracefile.events import Trace
from tracers.tracefile.names import TraceName

_CHECKED: set[Path] = set()  # the traces the claim checker has read
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
SCRIPTS = Path(__file__).resolve().parent / "scripts"
# Traced runs that a fixture needs all of go two at a time where there are two cores: each run is its own
# processes, so no result depends on what runs beside it.
SIDE_BY_SIDE = max(1, min(2, os.cpu_count() or 1))
T = TypeVar("T")


@dataclass(frozen=True)
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    trace_path: Path | None

    def trace(self) -> Trace:
        """The run's trace, its findings checked against it (issue 51: every trace the tests make, the claim checker
        finds nothing), once per run."""
        assert self.trace_path is not None and self.trace_path.exists(), self.stderr
        trace = load(self.trace_path)
        if self.trace_path not in _CHECKED:
            _CHECKED.add(self.trace_path)
            assert check(trace) == [], f"{self.trace_path}: findings the run refutes"
        return trace

    def facts(self) -> TraceFacts:
        return analyze(self.trace())


def run_python(args: list[str], env: dict[str, str] | None = None, timeout: float = 600,
               cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=timeout)


def side_by_side(jobs: dict[str, Callable[[], T]]) -> dict[str, T]:
    """Each job's result by name, SIDE_BY_SIDE jobs at a time (the slowest first is best)."""
    with ThreadPoolExecutor(max_workers=SIDE_BY_SIDE) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def run_trace(script: Path | str, out: Path, *options: str, script_args: tuple[str, ...] = (),
              env: dict[str, str] | None = None) -> CliRun:
    result = run_python(["-m", "tracers", "trace", "--out", str(out), *options, str(script), *script_args], env=env)
    device = next((options[i + 1] for i, o in enumerate(options) if o == "--device"), "cpu")
    cache = next((options[i + 1] for i, o in enumerate(options) if o == "--cache"), "cold")
    path = out / TraceName(Path(script).stem, device, cache).file_name
    return CliRun(result.returncode, result.stdout, result.stderr, path if path.exists() else None)


@pytest.fixture(scope="session")
def mlp_cold(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    """The MLP through Inductor with caches off: the one full cold compile of the suite (with IR kept)."""
    return run_trace(EXAMPLES / "mlp.py", tmp_path_factory.mktemp("mlp-cold"), "--inductor-ir")


@pytest.fixture(scope="session")
def mlp_warm_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[CliRun, CliRun]:
    """The MLP twice with caches on and one shared cache dir: the second run hits the caches."""
    cache_dir = tmp_path_factory.mktemp("inductor-cache")
    env = {"TORCHINDUCTOR_CACHE_DIR": str(cache_dir)}
    first = run_trace(EXAMPLES / "mlp.py", tmp_path_factory.mktemp("warm-1"), "--cache", "warm", env=env)
    second = run_trace(EXAMPLES / "mlp.py", tmp_path_factory.mktemp("warm-2"), "--cache", "warm", env=env)
    return first, second


@pytest.fixture(scope="session")
def graph_breaks(tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    """Graph breaks and recompiles, with aot_eager (no C++ compile)."""
    return run_trace(EXAMPLES / "graph_breaks.py", tmp_path_factory.mktemp("breaks"), script_args=("aot_eager",))
