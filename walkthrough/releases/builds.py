"""Which build of torch (CPU or CUDA) a wheel or an installed torch is, and which one this machine should run."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

BUILDS = ("cpu", "cuda")
# torch's own record of its build: torch/version.py's ``cuda`` is None in a CPU build, "13.0" in a CUDA 13.0 one.
_CUDA = re.compile(r"^cuda(?:\s*:\s*[\w\[\]. ]+)?\s*=\s*(?P<value>None|'[^']*'|\"[^\"]*\")", re.M)


@dataclass(frozen=True)
class Build:
    kind: str  # cpu or cuda
    cuda: str | None = None  # the CUDA version of a CUDA build

    @property
    def label(self) -> str:
        return f"CUDA {self.cuda}" if self.cuda else "CPU"


def build_from_version_py(text: str) -> Build | None:
    match = _CUDA.search(text)
    if match is None:
        return None
    value = match["value"].strip("'\"")
    return Build("cpu") if value == "None" else Build("cuda", value)


def wheel_build(wheel: Path) -> Build | None:
    """The build of a torch wheel, read from its torch/version.py (the file name alone says it only on some indexes)."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            return build_from_version_py(archive.read("torch/version.py").decode("utf-8", "replace"))
    except (OSError, KeyError, zipfile.BadZipFile):
        return None


def installed_build(python: Path) -> Build | None:
    """The build of the torch a Python has installed, read from its version.py without importing torch (slow)."""
    script = ("import importlib.util as u; s = u.find_spec('torch'); "
              "print(list(s.submodule_search_locations)[0] if s else '')")
    try:
        result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    folder = result.stdout.strip()
    if result.returncode != 0 or not folder:
        return None
    try:
        return build_from_version_py((Path(folder) / "version.py").read_text(encoding="utf-8"))
    except OSError:
        return None


def machine_build() -> str:
    """cuda where this machine has an NVIDIA GPU (nvidia-smi lists one), else cpu: the build each side should be."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "cpu"
    try:
        result = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "cpu"
    return "cuda" if result.returncode == 0 and "GPU" in result.stdout else "cpu"
