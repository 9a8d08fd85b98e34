"""The script run as ``__main__``: its own traceback, printed by the tracer, as plain Python prints it."""

from __future__ import annotations

import linecache

import pytest

from tracers.capture.runner import check_script, run_program

pytestmark = pytest.mark.pure

SCRIPT = """import os
os.chdir({away!r})

def fail():
    raise ValueError("boom")

fail()
"""


def test_a_script_that_changed_directory_keeps_its_source_lines_in_its_traceback(tmp_path, monkeypatch, capsys):
    """issue 55: the script's code carries its path as typed (``sub/job.py``), and once the script had changed
    directory the traceback's lines were gone; plain Python shows them."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "sub" / "job.py").write_text(SCRIPT.format(away=str(tmp_path / "elsewhere")), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    linecache.cache.pop("sub/job.py", None)
    try:
        outcome = run_program(check_script("sub/job.py"), [])
    finally:
        linecache.cache.pop("sub/job.py", None)
    assert outcome.status == "error"
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1:3] == ['  File "sub/job.py", line 7, in <module>', "    fail()"]
    assert lines[3:5] == ['  File "sub/job.py", line 5, in fail', '    raise ValueError("boom")']
    assert lines[-1] == "ValueError: boom"
