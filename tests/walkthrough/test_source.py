"""Torch trees from a directory, a wheel read as a zip, and a version fetched (by a stand-in pip) into a cache."""

from __future__ import annotations

import sys
import zipfile

import pytest

from tests.walkthrough_fixtures import PIPELINE, write_tree, write_wheel
from walkthrough import source
from walkthrough.source import DirSource, SourceError, WheelSource, open_source

pytestmark = pytest.mark.pure

FAKE_PIP = '''
import sys, zipfile, pathlib
args = sys.argv[1:]
spec = next(a for a in args if a.startswith("torch=="))
dest = pathlib.Path(args[args.index("-d") + 1])
version = spec.split("==")[1]
if not version.startswith("9."):
    print("ERROR: Could not find a version that satisfies the requirement " + spec)
    print("ERROR: No matching distribution found for " + spec)
    sys.exit(1)
with zipfile.ZipFile(dest / f"torch-{version}-py3-none-any.whl", "w") as z:
    z.writestr("torch/__init__.py", "")
    z.writestr("torch/version.py", f"__version__ = '{version}'\\ngit_version = '" + "b" * 40 + "'\\n")
print("Saved", dest)
'''


def test_directory_and_its_torch_dir(tmp_path):
    root = write_tree(tmp_path / "tree", "1.2.3")
    for spec in (root, root / "torch"):
        tree = open_source(str(spec))
        assert isinstance(tree, DirSource)
        assert (tree.version, tree.base_version, tree.git_version) == ("1.2.3+cpu", "1.2.3", "a" * 40)
        assert PIPELINE in tree.python_files()
        assert tree.read("torch/nope.py") is None


def test_wheel_is_read_in_place(tmp_path):
    wheel = open_source(str(write_wheel(tmp_path / "torch-1.2.3-py3-none-any.whl", "1.2.3")))
    assert isinstance(wheel, WheelSource)
    assert wheel.version == "1.2.3+cpu"
    assert "def entry(" in wheel.read(PIPELINE)
    assert all(p.startswith("torch/") and p.endswith(".py") for p in wheel.python_files())


def test_bad_inputs_are_one_line_errors(tmp_path):
    corrupt = tmp_path / "torch-1.0-py3-none-any.whl"
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip")
    (tmp_path / "empty").mkdir()
    not_torch = tmp_path / "other.whl"
    with zipfile.ZipFile(not_torch, "w") as z:
        z.writestr("numpy/__init__.py", "")
    cases = {str(corrupt): "not a readable wheel", str(tmp_path / "empty"): "holds no torch/ package",
             str(not_torch): "not a torch tree", str(tmp_path / "gone.whl"): "no such file",
             "two point oh": "not 'installed', a directory"}
    for spec, message in cases.items():
        with pytest.raises(SourceError, match=message) as info:
            open_source(spec)
        assert "\n" not in str(info.value)


@pytest.fixture
def fake_pip(tmp_path, monkeypatch):
    script = tmp_path / "fake_pip.py"
    script.write_text(FAKE_PIP)
    monkeypatch.setattr(source, "PIP_COMMAND", [sys.executable, str(script)])
    monkeypatch.setenv(source.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "wheels"


def test_version_is_fetched_once_into_the_cache(fake_pip, monkeypatch, capsys):
    tree = open_source("9.9.9")
    assert tree.version == "9.9.9" and tree.git_version == "b" * 40
    assert [p.name for p in fake_pip.iterdir() if p.suffix == ".whl"] == ["torch-9.9.9-py3-none-any.whl"]
    assert "fetching torch 9.9.9" in capsys.readouterr().err
    monkeypatch.setattr(source, "PIP_COMMAND", ["/nonexistent/pip"])  # a second open must not download
    assert open_source("9.9.9").version == "9.9.9"


def test_short_version_is_the_same_release(fake_pip, monkeypatch):
    assert open_source("9.8").version == "9.8.0"
    monkeypatch.setattr(source, "PIP_COMMAND", ["/nonexistent/pip"])
    assert open_source("9.8.0").version == "9.8.0"  # one cached wheel for both spellings


def test_unknown_version_says_what_pip_said(fake_pip):
    with pytest.raises(SourceError) as info:
        open_source("0.0.1")
    message = str(info.value)
    assert message == ("torch 0.0.1: pip download failed: Could not find a version that satisfies "
                       "the requirement torch==0.0.1; pass a torch 0.0.1 wheel file or a directory holding "
                       "its torch/ instead")
    assert not list(fake_pip.glob("*.whl"))  # nothing half-written is left as a cache hit
