"""A notebook's lines said as the notebook shows them: ``cell N, line M``, from IPython's and ipykernel's cell files."""

from __future__ import annotations

import os
import sys
import tempfile
import types

import pytest

from tracers.analysis.frames import SourceLine, is_library
from tracers.api.result import SourceLine as ApiSourceLine
from tracers.vocabulary.cells import cell_number, cell_place, is_cell

pytestmark = pytest.mark.pure

TEMP = tempfile.gettempdir()  # where ipykernel writes its cell files on this machine
KERNEL_FILE = os.path.join(TEMP, "ipykernel_4242", "2712937181.py")  # a hash of the cell's code under its pid's folder


def _kernel(monkeypatch, names: dict) -> None:
    """A running IPython shell whose compiler filed each cell under ``names`` (file name -> execution count)."""
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(_filename_map=names))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))


def test_ipython_s_own_cell_name_carries_its_number():
    assert cell_place("<ipython-input-7-0123456789ab>", 3) == "cell 7, line 3"
    assert SourceLine("<ipython-input-7-0123456789ab>", 3).short == "cell 7, line 3"
    assert not is_library("<ipython-input-7-0123456789ab>")  # the user's own code, not a pseudo-file like <string>
    assert is_library("<string>")


def test_an_ipykernel_cell_file_is_numbered_by_the_running_kernel(monkeypatch):
    _kernel(monkeypatch, {KERNEL_FILE: 5, os.path.join(TEMP, "ipykernel_4242", "99.py"): 6})
    assert cell_number(KERNEL_FILE) == 5
    assert cell_place(KERNEL_FILE, 2) == "cell 5, line 2"
    assert SourceLine("<tmp>/ipykernel_4242/2712937181.py", 2, "step").short == "cell 5, line 2"  # a scrubbed path
    assert str(ApiSourceLine(KERNEL_FILE, 2, "print(x)")) == "cell 5, line 2 `print(x)`"


def test_an_ipykernel_cell_file_read_outside_its_kernel_is_still_a_cell(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert cell_place(KERNEL_FILE, 2) == "a notebook cell, line 2"
    _kernel(monkeypatch, {os.path.join(TEMP, "ipykernel_1", "2712937181.py"): 3})  # another kernel's cell of the same code
    assert cell_place(KERNEL_FILE, 2) == "a notebook cell, line 2"


def test_other_files_keep_file_and_line():
    for path in ("train.py", "/home/u/ipykernel_x/model.py", os.path.join(TEMP, "ipykernel_12", "notes.py")):
        assert not is_cell(path) and cell_place(path, 4) is None
    assert SourceLine("/home/u/train.py", 4).short == "train.py:4"
    assert str(ApiSourceLine("/home/u/train.py", 4)) == "train.py:4"
