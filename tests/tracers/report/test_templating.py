"""The compiled-template cache: used when sound, and a garbled, cut or special file there costs nothing."""

from __future__ import annotations

import os

import pytest
from jinja2 import ChoiceLoader, Environment

from tracers.report import templating

pytestmark = pytest.mark.pure


def _environment(cache_dir) -> Environment:  # noqa: ANN001 - a path
    return Environment(loader=ChoiceLoader([templating._Loader("tracers.report", "templates")]), autoescape=True,
                       finalize=templating._escaped, keep_trailing_newline=True, trim_blocks=True,
                       lstrip_blocks=True, bytecode_cache=templating._Compiled(str(cache_dir)))


def _page(cache_dir) -> str:  # noqa: ANN001 - a path
    return _environment(cache_dir).get_template("site_note.html").render(note=None)


def test_a_damaged_cache_gives_the_same_page(tmp_path):
    fresh = _page(tmp_path)
    files = sorted(tmp_path.iterdir())
    assert files, "the compiled template was cached"
    assert _page(tmp_path) == fresh  # from the cache
    for cut in (5, 40, 60):  # inside the magic, inside the checksum's pickle, inside the code's marshal
        for path in files:
            path.write_bytes(path.read_bytes()[:cut] + b"garbage")
        assert _page(tmp_path) == fresh
    for path in files:
        path.unlink()
        os.mkfifo(path)  # never opened: a named pipe would block the read
    assert _page(tmp_path) == fresh


def test_no_cache_folder_is_no_error(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert _page(blocked / "below") == _page(tmp_path)  # cannot be written: compiled each time
