"""The release comparison for real: a small program under the reference torch and 2.14.1 (its venv made once)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracers.analysis.diff import kernels, run_counts
from tracers.analysis.trace_facts import analyze
from tracers.tracefile.chrome import load
from tracers.tracefile.names import process_files
from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.compare.model import read
from walkthrough.compare.runs import interpreter
from walkthrough.releases.builds import machine_build
from walkthrough.releases.wheels import runnable_wheel
from walkthrough.source import SourceError

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = ROOT / "tests" / "programs" / "upgrade_check.py"
OTHER = "2.14.1"  # a supported release whose wheels this machine's package index holds (no GB download)
BUILD = os.environ.get("COMPARE_BUILD") or machine_build()  # both sides this build, as the command does

pytestmark = [pytest.mark.slow, pytest.mark.torch]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def _single_trace(python: Path, out: Path) -> dict[str, int]:
    """The program traced once on its own under one release: the counts a comparison must agree with."""
    result = subprocess.run([str(python), "-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(out),
                             str(PROGRAM)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    trace = load(process_files(out)[0])
    return {**run_counts(analyze(trace)), "kernels": len(kernels(trace))}


def test_a_small_program_under_two_releases(tmp_path):
    for release in (REFERENCE_TORCH, OTHER):
        try:
            runnable_wheel(release, BUILD)
        except SourceError as exc:  # e.g. no CPU build of OTHER where only PyPI is reachable: COMPARE_BUILD=cuda
            pytest.skip(str(exc))
    command = [sys.executable, "-m", "walkthrough", "compare", "--build", BUILD, "--torch", REFERENCE_TORCH,
               "--torch", OTHER, "--repeat", "2", "--out", str(tmp_path / "compare"), str(PROGRAM)]
    # The release venv is the one `python -m walkthrough record --torch` makes and reuses, in the per-user cache.
    result = subprocess.run(command, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stderr[-3000:]
    folder = tmp_path / "compare" / f"upgrade_check-{REFERENCE_TORCH}-vs-{OTHER}"
    comparison = read(folder / "comparison.json")
    assert (comparison.a.release, comparison.b.release, comparison.repeat) == (REFERENCE_TORCH, OTHER, 2)
    assert comparison.b.torch_version.startswith(OTHER) and comparison.a.torch_version.startswith(REFERENCE_TORCH)
    assert comparison.a.build == comparison.b.build and comparison.a.build.lower().startswith(BUILD)
    assert (folder / "comparison.html").is_file() and "wrote " in result.stdout

    singles = [_single_trace(interpreter(REFERENCE_TORCH, BUILD)[0], tmp_path / "single-a"),
               _single_trace(interpreter(OTHER, BUILD)[0], tmp_path / "single-b")]
    for column, single in zip((1, 2), singles):
        assert {row[0]: row[column] for row in comparison.counts} == single
    assert singles[0]["graph breaks"] >= 1 and singles[0]["kernels"] >= 1
    assert not comparison.varied

    # Each release's runs: its own trace and its own output, the script's exit code kept.
    for side in (comparison.a, comparison.b):
        assert side.exit_codes == (0, 0) and len(side.runs) == 2
        for run in side.runs:
            assert load(folder / run.trace).info.torch_version == side.torch_version
            assert f"ran with torch {side.torch_version}" in (folder / run.output).read_text()
    # Two runs each: every stage both ran has a spread, so a change is either noise or not.
    assert all(row.noise is not None for row in comparison.stages if row.a and row.b)
    moved = {stage.stage for stage in comparison.changes}
    assert moved == {row.key for row in comparison.stages if row.moved(REFERENCE_TORCH, OTHER)}
    assert comparison.compared_entries > 0 or not moved
