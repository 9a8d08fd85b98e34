"""python -m walkthrough: exit 0 when nothing drifted, 1 on drift, 2 with one clear line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.walkthrough_fixtures import DRIVER, PIPELINE, edit, write_tree
from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough import __main__ as cli
from walkthrough import source
from walkthrough.__main__ import main
from walkthrough.lock import compute_lock, write_lock
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
M = "torch._pipeline.driver"


@pytest.fixture
def setup(tmp_path, monkeypatch):
    # Synthetic trees have none of the stages table's targets: check only what this lock holds.
    monkeypatch.setattr(cli, "stage_hooks", lambda: [])
    base = write_tree(tmp_path / "base")
    lock = compute_lock(resolver_for(open_source(str(base))), [], [(f"{M}:entry", "entry")])
    write_lock(lock, tmp_path / "lock.json")
    return base, tmp_path / "lock.json"


def verify(*args: str) -> int:
    return main(["verify", *args])


def test_nothing_drifted_is_exit_0_with_json(setup, tmp_path, capsys):
    base, lock = setup
    out = tmp_path / "r.json"
    assert verify("--against", str(base), "--baseline", str(base), "--lock", str(lock), "--json", str(out)) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["SAME"] == 1 and data["exit_code"] == 0
    assert [s["qualname"] for s in data["symbols"]] == [f"{M}:entry"]
    assert "1 SAME" in capsys.readouterr().out


def test_drift_is_exit_1_and_markdown(setup, tmp_path, capsys):
    base, lock = setup
    new = write_tree(tmp_path / "new", "1.1.0", {PIPELINE: edit(DRIVER, "options=None", "options=()")})
    md = tmp_path / "r.md"
    code = verify("--against", str(new), "--baseline", str(base), "--lock", str(lock), "--markdown", str(md),
                  "--diffs")
    out = capsys.readouterr().out
    assert code == 1
    assert "CHANGED   hook    torch._pipeline.driver:entry" in out
    assert "+def entry(frame, options=()):" in out  # --diffs prints them
    assert md.read_text().startswith("# Walkthrough verify: torch 1.1.0+cpu")


def test_bad_inputs_are_exit_2_and_one_line(setup, tmp_path, capsys, monkeypatch):
    base, lock = setup
    corrupt = tmp_path / "torch-1-py3-none-any.whl"
    corrupt.write_bytes(b"garbage")
    newer = tmp_path / "newer.json"
    newer.write_text('{"format": 7}')
    monkeypatch.setattr(source, "PIP_COMMAND", [sys.executable, "-c",
                                                "print('ERROR: No matching distribution found for torch==0.0.1');"
                                                "raise SystemExit(1)"])
    monkeypatch.setenv(source.CACHE_ENV, str(tmp_path / "cache"))
    cases = [
        (["--against", "0.0.1"], "pip download failed: No matching distribution found for torch==0.0.1"),
        (["--against", str(corrupt)], "not a readable wheel"),
        (["--against", str(tmp_path)], "holds no torch/ package"),
        (["--against", str(base), "--lock", str(newer)], "lock format 7 is newer"),
    ]
    for args, message in cases:
        capsys.readouterr()
        extra = [] if "--lock" in args else ["--lock", str(lock)]
        assert verify(*args, *extra, "--baseline", str(base)) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("walkthrough: error: ") and message in err[-1], err
    with pytest.raises(SystemExit) as info:
        main(["verify", "--no-such-flag"])
    assert info.value.code == 2


def test_lock_refuses_a_tree_that_is_not_the_reference(setup, capsys):
    base, lock = setup
    assert main(["lock", "--against", str(base), "--lock", str(lock)]) == 2
    assert f"reference torch {REFERENCE_TORCH}" in capsys.readouterr().err


def test_lock_check_of_the_repo_and_the_module_entry_point():
    """``python -m walkthrough lock --check`` in a fresh process: the committed lock is current."""
    result = subprocess.run([sys.executable, "-m", "walkthrough", "lock", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout
