"""Sphinx configuration of the walkthrough site: ``sphinx-build -c . docs build/html`` (or ``nox -s docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # the walkthrough extension and the stages table live in this repo

from tracers.env import REFERENCE_TORCH  # noqa: E402

project = "torch.compile, stage by stage"
html_title = f"{project} — torch {REFERENCE_TORCH}"
extensions = ["myst_parser", "walkthrough"]
source_suffix = {".md": "markdown"}
# Example programs and recorded traces are data the pages read, not pages; verify reports are
# linked as files from the landing page once the site renders them.
exclude_patterns = ["examples", "_traces", "verify"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# Excerpts and facts come from the installed torch; the build fails when the lock
# (docs/walkthrough.lock.json) no longer matches it.
walkthrough_torch = "installed"
walkthrough_lock = "walkthrough.lock.json"
