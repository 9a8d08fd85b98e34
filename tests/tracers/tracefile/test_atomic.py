"""The one atomic writer behind traces, measurements, toolbox recordings and the lock."""

from __future__ import annotations

import os
import stat

import pytest

from tracers.tracefile.atomic import write_text_atomic

pytestmark = pytest.mark.pure


def test_the_file_appears_whole_with_ordinary_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_text_atomic(tmp_path / "new" / "data.json", "{}\n")
    finally:
        os.umask(old)
    assert path.read_text() == "{}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # not mkstemp's private 0600
    assert [p.name for p in path.parent.iterdir()] == ["data.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "data.json"
    path.write_text("old")
    with pytest.raises(TypeError):  # the write itself fails, after the temporary file was made
        write_text_atomic(path, object())  # type: ignore[arg-type]
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["data.json"]
