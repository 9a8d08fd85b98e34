"""Sphinx configuration of the walkthrough site: ``sphinx-build -c . docs build/html`` (or ``nox -s docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # the walkthrough extension and the stages table live in this repo

from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402
from walkthrough.releases.catalog import installed_release  # noqa: E402

project = "torch.compile, stage by stage"
# The release the pages are built from (python -m walkthrough build sets it for a wheel or a directory).
html_title = f"{project} — torch {installed_release() or REFERENCE_TORCH}"
extensions = [
    "myst_parser",
    "sphinx_design",  # tabs for CPU / CUDA
    "sphinx_copybutton",
    "sphinx.ext.autodoc",  # the Python API's reference (docs/python-api.md)
    "walkthrough",  # torch-excerpt, torch-symbol, torch-fact and the lock check
    "walkthrough.sphinx.traces",  # torch-trace: recorded call trees, CPU and CUDA tabs
    "walkthrough.sphinx.rank_traces",  # torch-ranks: a distributed run's ranks merged, divergence first (CPU/CUDA tabs)
    "walkthrough.sphinx.trace_diff",  # torch-trace-diff: the stage diff of two recordings (CPU vs CUDA, cold vs warm)
    "walkthrough.sphinx.measurements",  # torch-measure: recorded timings of eager vs compiled, table and charts
    "walkthrough.sphinx.outputs",  # torch-output: what an example that runs its own processes printed (ch. 14)
    "walkthrough.toolbox.directive",  # toolbox-table, -costs, -output: the debugging tools compared (ch. 18)
    "walkthrough.sphinx.site",  # the pipeline map and each page's torch/verify banner
    "walkthrough.sphinx.releases",  # the version switcher and each release's "what changed" page
    "walkthrough.sphinx.compare",  # release-compare: a recorded comparison of one script under two releases
]
source_suffix = {".md": "markdown"}
# Example programs and recorded traces are data the pages read, not pages. The recorded verify
# reports (docs/verify/) are pages: the banners link them.
exclude_patterns = ["examples", "_traces"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

html_theme = "furo"
html_static_path = [str(ROOT / "docs" / "_static")]
html_css_files = ["theme.css"]
html_favicon = str(ROOT / "docs" / "_static" / "favicon.svg")  # browsers ask for one; a 404 is a console error
# Prompts and console output are not copied: a copied block runs as is.
copybutton_prompt_text = r"\$ |>>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = False

# Excerpts and facts come from the installed torch; the build fails when the lock
# (docs/walkthrough.lock.json) no longer matches it. With another release installed (or
# `python -m walkthrough build --torch X`), the pages show that release and mark what drifted.
walkthrough_torch = "installed"
walkthrough_lock = "walkthrough.lock.json"
walkthrough_verify_reports = "verify"
# The torch each device's recorded traces should come from (docs/_traces/<device>/<torch>/); a trace
# from another release builds with a warning. The GPU machine runs an older release than the reference.
walkthrough_trace_versions = {"cuda": "2.11.0"}
