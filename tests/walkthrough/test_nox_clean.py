"""``nox -s clean``: lists the venvs and caches the tool made (the per-user cache as sites.py finds it), removes
them only with ``-- --yes``; the sessions share one venv per torch release, each adding only what it lacks."""

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
    fake.session = _fake_session
    monkeypatch.setitem(sys.modules, "nox", fake)
    spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_session(*args, **kwargs):
    """nox.session's two forms; the decorator's arguments kept on the function, to read which venv it runs in."""
    def mark(function):
        function.nox_kwargs = kwargs
        return function
    return mark(args[0]) if args and callable(args[0]) else mark


class Session:
    def __init__(self, *posargs: str) -> None:
        self.posargs, self.lines, self.runs, self.env = list(posargs), [], [], {}

    def log(self, text: str) -> None:
        self.lines.append(text)

    def run(self, *args: str, **kwargs) -> None:
        self.runs.append(args)


# The two sessions that keep a venv of their own: the benchmarks install unpinned tools beside torch, and compare
# holds the reference release beside another's; clean needs none.
OWN_VENV = {"bench", "compare"}


def test_the_sessions_share_one_venv_per_torch_release(noxfile):
    sessions = {name: value for name, value in vars(noxfile).items() if hasattr(value, "nox_kwargs")}
    assert {"tests", "docs", "trace", "releases", "record", "measure", "toolbox", "verify", "lock", "corpus",
            "bench", "compare", "clean"} <= set(sessions)
    shared = {name for name, function in sessions.items() if function.nox_kwargs.get("venv_backend") == "none"}
    assert shared == set(sessions) - OWN_VENV
    assert noxfile.SHARED == ROOT / ".nox" / f"torch-{noxfile.REFERENCE_TORCH}"


def test_the_shared_venv_gets_what_a_session_lacks_and_nothing_twice(noxfile, tmp_path, monkeypatch):
    venv = tmp_path / ".nox" / "torch-2.13.0"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()  # made already: no venv is created here
    monkeypatch.setattr(noxfile, "SHARED", venv)
    monkeypatch.setattr(noxfile, "_STAMP", venv / "stamp.json")

    def installs(session):
        return [run for run in session.runs if run[1:4] == ("-m", "pip", "install")]

    docs = Session()
    assert noxfile._shared(docs, "docs") == str(venv / "bin" / "python")
    assert installs(docs) == [(str(venv / "bin" / "python"), "-m", "pip", "install", "torch==2.13.0", "numpy",
                               "-e", ".[docs]")]
    assert docs.env["VIRTUAL_ENV"] == str(venv) and docs.env["PATH"].startswith(str(venv / "bin"))
    again = Session()
    noxfile._shared(again, "docs")
    assert installs(again) == [] and any("import torch" in " ".join(run) for run in again.runs)  # says its torch
    tests = Session()
    noxfile._shared(tests, "test", packages=("transformers==5.24.0",))
    assert installs(tests)[0][-3:] == ("-e", ".[docs,test]", "transformers==5.24.0")  # what it had, kept
    monkeypatch.setattr(noxfile, "ROOT", tmp_path)  # another pyproject.toml: its dependencies may have changed
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    changed = Session()
    noxfile._shared(changed, "docs")
    assert installs(changed)[0][-2:] == ("-e", ".[docs]")


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
