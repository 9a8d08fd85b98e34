"""``nox -s compare``: the session's own torch is the machine's build, so a machine without a GPU installs CPU wheels
only (a +cpu local version: pip takes a CPU wheel or fails, never PyPI's CUDA build)."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest

from tracers.vocabulary.releases import REFERENCE_TORCH

from tests.conftest import ROOT

pytestmark = pytest.mark.pure


class _Session:
    def __init__(self, *posargs: str) -> None:
        self.posargs, self.installs, self.runs = list(posargs), [], []

    def install(self, *args: str) -> None:
        self.installs.append(args)

    def run(self, *args: str, **_: object) -> None:
        self.runs.append(args)

    def error(self, text: str) -> None:
        raise SystemExit(text)

    def log(self, text: str) -> None:
        pass


@pytest.fixture
def noxfile(monkeypatch):
    fake = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()
    fake.Session = object

    def session(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - nox.session's two forms
        return args[0] if args and callable(args[0]) else (lambda function: function)

    fake.session = session
    monkeypatch.setitem(sys.modules, "nox", fake)
    spec = importlib.util.spec_from_file_location("noxfile_compare_under_test", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _torch_installs(session: _Session) -> list[str]:
    return [arg for args in session.installs for arg in args if arg.startswith("torch")]


def test_without_a_gpu_the_session_installs_the_cpu_build_only(noxfile, monkeypatch):
    monkeypatch.setattr(noxfile.shutil, "which", lambda name: None)  # no nvidia-smi: no GPU
    session = _Session("--torch", REFERENCE_TORCH, "--torch", "2.14.1", "x.py")
    noxfile.compare(session)
    assert _torch_installs(session) == [f"torch=={REFERENCE_TORCH}+cpu"]
    assert session.runs[-1][:4] == ("python", "-m", "walkthrough", "compare")


def test_with_a_gpu_or_build_cuda_the_session_installs_the_cuda_build(noxfile, monkeypatch):
    monkeypatch.setattr(noxfile.shutil, "which", lambda name: None)
    session = _Session("--build", "cuda", "--torch", REFERENCE_TORCH, "--torch", "2.14.1", "x.py")
    noxfile.compare(session)
    assert _torch_installs(session) == [f"torch=={REFERENCE_TORCH}"]
    assert "--build" in session.runs[-1]  # the command gets the same build for both sides
