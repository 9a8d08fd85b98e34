"""A walkthrough build says how far it is: chapters read out of all, on the way (a real, tiny Sphinx project)."""

from __future__ import annotations

import pytest

from walkthrough.releases import build

pytestmark = pytest.mark.sphinx

CONF = """\
def setup(app):
    app.add_config_value("walkthrough_torch", "", "html")
    app.add_config_value("walkthrough_switcher", "", "html")
"""


def test_a_build_reports_chapters_read_out_of_all(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "conf.py").write_text(CONF)
    names = [f"chapter{index}" for index in range(3)]
    (tmp_path / "docs" / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n" +
                                                 "".join(f"   {name}\n" for name in names))
    for name in names:
        (tmp_path / "docs" / f"{name}.rst").write_text(f"{name}\n{'=' * len(name)}\n\nText.\n")
    lines: list[str] = []
    result = build.build_one(build.Planned("2.13.0", "installed"), tmp_path / "out", tmp_path / "doctrees",
                             docs=tmp_path / "docs", conf=tmp_path, progress=lines.append)
    assert result.ok, result.output
    assert [line.strip() for line in lines] == [f"chapters {done}/4 read" for done in range(1, 5)]
    assert (tmp_path / "out" / "chapter2.html").is_file()


def test_a_failed_build_is_its_messages_and_a_non_zero_status(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "docs" / "index.rst").write_text("Home\n====\n\n:unknownrole:`x`\n")
    result = build.build_one(build.Planned("2.13.0", "installed"), tmp_path / "out", tmp_path / "doctrees",
                             docs=tmp_path / "docs", conf=tmp_path)
    assert not result.ok and "unknownrole" in result.output
