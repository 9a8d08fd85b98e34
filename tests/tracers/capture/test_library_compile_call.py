"""A library that calls torch.compile for the user is known as one when pip installed it outside site-packages
(``pip install --target`` on PYTHONPATH, a folder holding a ``*.dist-info``): the user's line below it is kept."""

from __future__ import annotations

import importlib
import sys

import pytest
import torch
import torch._dynamo

from tracers.capture.session import TraceSession

pytestmark = pytest.mark.torch

_LIBRARY = '''
import torch


def prepare(model):
    return torch.compile(model, backend="aot_eager")
'''


def test_a_compile_call_from_a_package_on_pythonpath_names_the_users_line(tmp_path, monkeypatch):  # noqa: ANN001
    folder = tmp_path / "pkgs"
    (folder / "fakeprep").mkdir(parents=True)
    (folder / "fakeprep" / "__init__.py").write_text(_LIBRARY)
    (folder / "fakeprep-1.0.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "fakeprep", raising=False)
    fakeprep = importlib.import_module("fakeprep")
    torch._dynamo.reset()
    session = TraceSession()
    with session:
        model = fakeprep.prepare(torch.nn.Linear(2, 2))  # the user's line
        model(torch.ones(2))
    torch._dynamo.reset()
    (call,) = [a.metadata for a in session.trace.artifacts if a.kind == "compile-call"]
    assert call["filename"].endswith("fakeprep/__init__.py")
    assert call["user"]["filename"] == __file__ and "fakeprep.prepare(" in call["user"]["loc"]
    assert call["entry"]["name"] == "prepare"
