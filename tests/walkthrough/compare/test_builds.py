"""Both sides one build: a wheel's build read from torch's own version.py, a CUDA wheel never fetched for a CPU side,
the reason said in one line, and release venvs in the per-user cache."""

from __future__ import annotations

import platform
import zipfile

import pytest

from walkthrough.compare.command import build_note
from walkthrough.releases import wheels
from walkthrough.releases.builds import Build, build_from_version_py, wheel_build
from walkthrough.releases.venvs import venv_python, venvs_note, venvs_root
from walkthrough.source import SourceError

pytestmark = pytest.mark.pure


def test_the_build_is_read_from_torchs_version_py():
    assert build_from_version_py("cuda: Optional[str] = '13.0'\n") == Build("cuda", "13.0")
    assert build_from_version_py("cuda: Optional[str] = None\n") == Build("cpu")
    assert build_from_version_py("cuda = None\ngit_version = 'x'\n") == Build("cpu")
    assert build_from_version_py("__version__ = '2.13.0'\n") is None
    assert Build("cuda", "13.0").label == "CUDA 13.0" and Build("cpu").label == "CPU"


def test_a_wheels_build_comes_from_inside_it(tmp_path):
    wheel = tmp_path / "torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("torch/version.py", "__version__ = '2.14.1+cu130'\ncuda: Optional[str] = '13.0'\n")
    assert wheel_build(wheel) == Build("cuda", "13.0")
    assert wheel_build(tmp_path / "missing.whl") is None


def test_the_build_pip_would_pick_is_known_before_downloading():
    linux = f'; platform_system == "{platform.system()}"'
    assert wheels.chosen_build("torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", []) == "cpu"
    assert wheels.chosen_build("torch-2.13.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl", []) == "cuda"
    assert wheels.chosen_build("torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl",
                               ["filelock", f"nvidia-cudnn-cu13==9.24.0.43{linux}"]) == "cuda"
    assert wheels.chosen_build("torch-2.14.1-cp311-none-macosx_14_0_arm64.whl",
                               ['nvidia-cudnn-cu13==9.24.0.43; platform_system == "NoSuchOS"']) == "cpu"


def test_a_cpu_side_never_fetches_a_cuda_wheel_and_says_why_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    cuda_wheel = "torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl"

    def would_pick(version, env, options):  # noqa: ANN001, ANN202
        if env.get("PIP_INDEX_URL") == wheels.CPU_INDEX:
            return None  # unreachable
        return cuda_wheel, [f'nvidia-cudnn-cu13==9.24.0.43; platform_system == "{platform.system()}"']

    downloads = []

    def download(version, env, options, into):  # noqa: ANN001, ANN202
        downloads.append(env.get("PIP_INDEX_URL"))
        return None, "Could not find a version that satisfies the requirement torch==2.14.1"

    monkeypatch.setattr(wheels, "_would_pick", would_pick)
    monkeypatch.setattr(wheels, "_download", download)
    with pytest.raises(SourceError) as raised:
        wheels.runnable_wheel("2.14.1", "cpu")
    message = str(raised.value)
    assert "\n" not in message and message.startswith("torch 2.14.1: no CPU build could be had")
    assert wheels.CPU_INDEX in message and f"only {cuda_wheel}, a CUDA build" in message
    assert "--build cuda" in message
    assert downloads == [wheels.CPU_INDEX]  # the CUDA wheel was never downloaded
    assert not list((tmp_path / "cache").rglob("*.whl"))


def test_release_venvs_live_in_the_per_user_cache_and_say_their_size(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert venvs_root() == tmp_path / "cache" / "venvs"
    python = venv_python("2.14.1", "cpu")
    assert python == tmp_path / "cache" / "venvs" / "torch-2.14.1-cpu" / "bin" / "python"
    assert venvs_note() == ""
    python.parent.mkdir(parents=True)
    python.write_bytes(b"x" * 2_000_000)
    note = venvs_note()
    assert f"release venvs in {venvs_root()}" in note and "torch-2.14.1-cpu 0.0 GB" in note
    assert f"rm -r {venvs_root()}" in note


def test_the_header_says_which_builds_ran():
    assert build_note(Build("cpu"), Build("cpu"), "cpu") == ""
    assert "without a GPU" in build_note(Build("cuda", "13.0"), Build("cuda", "13.0"), "cpu")
    assert build_note(Build("cpu"), Build("cuda", "13.0"), "cpu").startswith("different builds: CPU against CUDA 13.0")
