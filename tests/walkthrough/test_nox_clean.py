"""``nox -s clean``: lists the venvs and caches the tool made (the per-user cache as sites.py finds it), removes
them only with ``-- --yes``."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest

from tracers.vocabulary.sites import cache_root

from tests.conftest import ROOT

pytestmark = pytest.mark.pure


@pytest.fixture
def noxfile(monkeypatch):
    """The noxfile, loaded with a stand-in for nox (the tests need not install it)."""
    fake = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()
    fake.Session = object
    fake.session = lambda *args, **kwargs: args[0] if args and callable(args[0]) else (lambda function: function)
    monkeypatch.setitem(sys.modules, "nox", fake)
    spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Session:
    def __init__(self, *posargs: str) -> None:
        self.posargs, self.lines = list(posargs), []

    def log(self, text: str) -> None:
        self.lines.append(text)


@pytest.mark.parametrize("env", [{}, {"XDG_CACHE_HOME": "/x/cache"}, {"TORCH_WALKTHROUGH_CACHE": "/y/mine"}])
def test_clean_names_the_cache_the_tool_uses(noxfile, monkeypatch, env):
    for name in ("XDG_CACHE_HOME", "TORCH_WALKTHROUGH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert noxfile.made_by_the_tool() == [ROOT / ".nox", ROOT / ".venvs", cache_root()]


def test_clean_is_a_dry_run_unless_told_yes(noxfile, tmp_path, monkeypatch):
    monkeypatch.setattr(noxfile, "ROOT", tmp_path / "clone")
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    for made in (tmp_path / "clone" / ".nox" / "docs", tmp_path / "cache" / "site" / "2.13.0"):
        made.mkdir(parents=True)
        (made / "f").write_bytes(b"x" * 1000)
    dry = Session()
    noxfile.clean(dry)
    assert (tmp_path / "clone" / ".nox").exists() and (tmp_path / "cache").exists()
    assert any("dry run" in line for line in dry.lines) and len([l for l in dry.lines if "GB)" in l]) == 2
    noxfile.clean(Session("--yes"))
    assert not (tmp_path / "clone" / ".nox").exists() and not (tmp_path / "cache").exists()
    empty = Session()
    noxfile.clean(empty)
    assert empty.lines == ["nothing to remove"]
