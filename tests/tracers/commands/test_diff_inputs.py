"""``diff`` on what users hand it: a TORCH_TRACE log is read as one, a field left out is said, and names from the
traces stay one printable line each (issue 52, item 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

TRACE = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "frame_cache-cpu-cold.json"
INPUTS = ROOT / "tests" / "data" / "tlparse" / "inputs"


def _diff(a: Path, b: Path):  # noqa: ANN202 - subprocess.CompletedProcess
    return run_python(["-m", "tracers", "diff", str(a), str(b)])


@pytest.mark.parametrize("name", ["simple.log.gz", "dedicated_log_torch_trace_simple.log"])
def test_a_torch_trace_log_is_diffed_as_the_trace_it_reads_as(tmp_path: Path, name: str) -> None:
    log = tmp_path / name
    if name.endswith(".gz"):
        shutil.copy(INPUTS / "simple.log.gz", log)
    else:  # plain text, named as torch names its logs
        import gzip
        log.write_bytes(gzip.decompress((INPUTS / "simple.log.gz").read_bytes()))
    result = _diff(log, TRACE)
    assert result.returncode == 0 and "not a TORCH_TRACE log" not in result.stderr, result.stderr
    assert result.stdout.startswith("Diff\n  A: cuda · torch unknown")
    # what reading the log noticed is said, as report says it
    assert f"diff: warning: {name}: no torch_version records" in result.stderr


def test_a_directory_of_rank_logs_is_one_line(tmp_path: Path) -> None:
    logs = INPUTS / "multi_rank_logs"
    result = _diff(logs, TRACE)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()[-1:]
    assert "diff compares two runs of one process each" in line and f"report {logs}" in line


def test_fields_left_out_of_a_trace_are_said(tmp_path: Path) -> None:
    data = json.loads(TRACE.read_text(encoding="utf-8"))
    [event] = [event for event in data["traceEvents"] if event.get("ph") == "X"][:1]
    event["args"]["frame"] = ["not", "text"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    result = _diff(bad, TRACE)
    assert result.returncode == 0, result.stderr
    assert f"diff: warning: {bad}: left out what could not be used: 1 span fields of the wrong type" in result.stderr


def test_a_newline_in_a_name_stays_on_its_line(tmp_path: Path) -> None:
    data = json.loads(TRACE.read_text(encoding="utf-8"))
    for event in data["traceEvents"]:
        if event.get("ph") == "X":
            event["args"]["target"] += "\nINJECTED"
            if event["args"].get("frame"):
                event["args"]["frame"] = "frame\nINJECTED"
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data), encoding="utf-8")
    result = _diff(odd, TRACE)
    assert result.returncode == 0, result.stderr
    assert "INJECTED" in result.stdout and "\\x0aINJECTED" in result.stdout
    assert not any(line.startswith("INJECTED") for line in result.stdout.splitlines())
