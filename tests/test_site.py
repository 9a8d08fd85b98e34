"""The site builds from conf.py at the root with warnings as errors, and its torch links point at the exact commit."""

from __future__ import annotations

import subprocess
import sys

import torch

from tracers.env import REFERENCE_TORCH

from .conftest import ROOT


def test_site_builds_with_warnings_as_errors(tmp_path):
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", str(ROOT),
         str(ROOT / "docs"), str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    index = (out / "index.html").read_text()
    sha = torch.version.git_version
    assert f"https://github.com/pytorch/pytorch/blob/{sha}/torch/__init__.py#L" in index
    assert f"blob/{sha}/torch/_functorch/partitioners.py#L" in index
    assert f"torch {REFERENCE_TORCH}" in index  # the reference release in the title
