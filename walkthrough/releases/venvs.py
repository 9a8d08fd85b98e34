"""A release's own virtual environment of one build, in the per-user cache (``venvs/torch-<release>-<build>``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from walkthrough.releases.builds import BUILDS, Build, installed_build, machine_build
from walkthrough.releases.catalog import supported
from walkthrough.releases.wheels import build_cache, pip_env_for_install, runnable_wheel
from walkthrough.source import VERSION_RE, SourceError, cache_root


def venvs_root() -> Path:
    """Release venvs live in the per-user cache ($TORCH_WALKTHROUGH_CACHE, else ~/.cache/...), never the current
    directory: a CUDA build's is GBs, and one venv serves every checkout and project."""
    return cache_root() / "venvs"


def venv_python(version: str, build: str, root: Path | None = None) -> Path:
    return (root or venvs_root()) / f"torch-{version}-{build}" / "bin" / "python"


def torch_in(python: Path) -> str | None:
    """The torch version a Python has installed, or None (asked without importing torch: it is slow)."""
    script = "import importlib.metadata as m; print(m.version('torch'))"
    try:
        result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def _holds(python: Path, version: str, build: str) -> Build | None:
    found = torch_in(python) if python.exists() else None
    if found is None or found.split("+", 1)[0] != version:
        return None
    kind = installed_build(python)
    return kind if kind is not None and kind.kind == build else None


def unsupported_line(version: str) -> str | None:
    """The one line for a release outside the supported ones, said before pip fetches gigabytes for a release the
    tracer was never checked on; None for a supported one."""
    if version in supported():
        return None
    return f"torch {version}: not a release the tracer and walkthrough are checked against (supported: " \
           f"{', '.join(supported())})"


def release_python(version: str, build: str | None = None, root: Path | None = None) -> tuple[Path, Build]:
    """The Python of a venv holding ``torch==version`` of ``build`` (default: this machine's) and numpy, made on
    first use from a wheel of that build. Raises SourceError with one line."""
    if not VERSION_RE.match(version):
        raise SourceError(f"{version!r}: not a torch version like 2.15.0")
    if unsupported_line(version):
        raise SourceError(unsupported_line(version))
    build = build or machine_build()
    python = venv_python(version, build, root)
    held = _holds(python, version, build)
    if held is not None:
        return python, held
    wheel, _ = runnable_wheel(version, build)
    venv = python.parent.parent
    print(f"making {venv} with torch {version}, {build} build (from {wheel.name}; its dependencies come from your "
          "package index) ...", file=sys.stderr, flush=True)
    steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
             [str(python), "-m", "pip", "install", "--progress-bar", "off", str(wheel), "numpy"]]
    env = pip_env_for_install()
    for step in steps:
        # pip's own progress goes to the terminal: installing torch's dependencies takes minutes.
        if subprocess.run(step, env=env).returncode != 0:
            raise SourceError(f"torch {version}: making {venv} failed at: {' '.join(step[:4])} ... "
                              "(pip's reason is printed above)")
    held = _holds(python, version, build)
    if held is None:
        raise SourceError(f"torch {version}: {venv} holds no {build} build of it after installing {wheel.name}")
    return python, held


def size_of(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def venvs_note() -> str:
    """Where the release venvs are, how big, and how to remove them: one line for the end of a run."""
    root = venvs_root()
    venvs = sorted(path for path in root.glob("torch-*") if path.is_dir()) if root.is_dir() else []
    if not venvs:
        return ""
    sizes = ", ".join(f"{path.name} {size_of(path) / 1e9:.1f} GB" for path in venvs)
    wheels = [folder for build in BUILDS if (folder := build_cache(build)).is_dir() and any(folder.glob("*.whl"))]
    kept = "".join(f"; their wheels in {folder} ({size_of(folder) / 1e9:.1f} GB)" for folder in wheels)
    return (f"release venvs in {root} ({sizes}){kept}; remove one with rm -r {root}/<name>, all with rm -r {root} "
            "(a later run makes what it needs again)")


def record_with_release(release: str, tracer_args: list[str]) -> int:
    """``python -m tracers record TRACER_ARGS`` in the release's own venv (made on first use), this checkout on
    its path: the site's examples recorded with that torch. The tracer needs only torch and the standard library,
    so the venv holds torch and numpy alone."""
    try:
        python, _ = release_python(release)
    except KeyboardInterrupt:
        print("record: interrupted", file=sys.stderr)
        return 130
    checkout = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [checkout, os.environ.get("PYTHONPATH")]))}
    try:
        return subprocess.run([str(python), "-m", "tracers", "record", *tracer_args], env=env).returncode
    except KeyboardInterrupt:
        return 130
