"""A release's own virtual environment (``.venvs/torch-<release>``), for recording traces with that torch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from walkthrough.releases.pip import unconstrained
from walkthrough.source import VERSION_RE, SourceError, fetch_wheel

VENVS_DIR = Path(".venvs")


def venv_python(version: str, root: Path = VENVS_DIR) -> Path:
    return root / f"torch-{version}" / "bin" / "python"


def torch_in(python: Path) -> str | None:
    """The torch version a Python has installed, or None (asked without importing torch: it is slow)."""
    script = "import importlib.metadata as m; print(m.version('torch'))"
    try:
        result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def release_python(version: str, root: Path = VENVS_DIR) -> Path:
    """The Python of a venv holding ``torch==version`` (and numpy), made on first use from the release's wheel.

    The wheel comes from the walkthrough's wheel cache (fetched once, as verify does); constraints that
    cap torch are left out, as the venv is the release's own. Raises SourceError with one line."""
    if not VERSION_RE.match(version):
        raise SourceError(f"{version!r}: not a torch version like 2.15.0")
    python = venv_python(version, root)
    found = torch_in(python) if python.exists() else None
    if found is not None and found.split("+", 1)[0] == version:
        return python
    wheel = fetch_wheel(version)
    venv = python.parent.parent
    print(f"making {venv} with torch {version} (from {wheel.name}; torch's own dependencies come from "
          "your package index) ...", file=sys.stderr, flush=True)
    steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
             [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off",
              str(wheel), "numpy"]]
    pip_env = unconstrained("install", [str(sys.executable), "-m", "pip"])
    for step in steps:
        # pip's own progress goes to the terminal: installing torch's dependencies takes minutes.
        if subprocess.run(step, env=pip_env.env).returncode != 0:
            raise SourceError(f"torch {version}: making {venv} failed at: {' '.join(step[:4])} ... "
                              "(pip's reason is printed above)")
    return python


def record_with_release(release: str, tracer_args: list[str]) -> int:
    """``python -m tracers record TRACER_ARGS`` in the release's own venv (made on first use), this checkout on
    its path: the site's examples recorded with that torch. The tracer needs only torch and the standard library,
    so the venv holds torch and numpy alone."""
    try:
        python = release_python(release)
    except KeyboardInterrupt:
        print("record: interrupted", file=sys.stderr)
        return 130
    checkout = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [checkout, os.environ.get("PYTHONPATH")]))}
    try:
        return subprocess.run([str(python), "-m", "tracers", "record", *tracer_args], env=env).returncode
    except KeyboardInterrupt:
        return 130
