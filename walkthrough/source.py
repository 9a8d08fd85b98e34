"""Torch source trees: the installed torch, a directory, a wheel read as a zip, or a release fetched by version."""

from __future__ import annotations

import abc
import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

from tracers.vocabulary.sites import CACHE_ENV, cache_root  # noqa: F401 (CACHE_ENV: the one per-user cache convention)
from walkthrough.releases.pip import unconstrained

# How wheels are fetched; a module constant so tests can stand in a fake pip without network.
PIP_COMMAND = [sys.executable, "-m", "pip"]
VERSION_RE = re.compile(r"^\d+\.\d+(\.\d+)?((a|b|rc|\.dev|\.post)\d+)*$")


class SourceError(Exception):
    """A torch tree that cannot be opened; the message is one line, fit for a user."""


class TorchSource(abc.ABC):
    """Read-only access to the ``torch/`` package of one release, by path inside the tree."""

    def __init__(self, origin: str) -> None:
        self.origin = origin  # what the user asked for, for messages and reports
        self._text: dict[str, str | None] = {}
        version_text = self.read("torch/version.py")
        if version_text is None:
            raise SourceError(f"{origin}: no torch/version.py, so this is not a torch tree")
        facts = _version_facts(version_text)
        self.version: str = facts.get("__version__", "")
        self.git_version: str = facts.get("git_version", "")
        if not self.version:
            raise SourceError(f"{origin}: torch/version.py has no __version__")

    @property
    def base_version(self) -> str:
        """The release without its local build tag: ``2.13.0+cpu`` is ``2.13.0``."""
        return self.version.split("+", 1)[0]

    def read(self, path: str) -> str | None:
        """The text of one file, e.g. ``torch/_dynamo/convert_frame.py``; None when it is not there."""
        if path not in self._text:
            data = self._read_bytes(path)
            self._text[path] = None if data is None else data.decode("utf-8", errors="replace")
        return self._text[path]

    @abc.abstractmethod
    def python_files(self) -> list[str]:
        """Every ``.py`` file under ``torch/``, sorted, as tree paths."""

    @abc.abstractmethod
    def _read_bytes(self, path: str) -> bytes | None:
        """The bytes of one file of the tree, None when it is not there."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} torch {self.version} from {self.origin}>"


class DirSource(TorchSource):
    """A directory that holds ``torch/`` (a checkout, site-packages, an unpacked wheel)."""

    def __init__(self, root: Path, origin: str | None = None) -> None:
        self.root = root
        super().__init__(origin or str(root))

    def _read_bytes(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def python_files(self) -> list[str]:
        base = self.root / "torch"
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*.py"))


class WheelSource(TorchSource):
    """A torch wheel, read in place as a zip: nothing is installed or unpacked."""

    def __init__(self, wheel: Path, origin: str | None = None) -> None:
        try:
            self.zip = zipfile.ZipFile(wheel)
        except (zipfile.BadZipFile, OSError) as exc:
            raise SourceError(f"{wheel}: not a readable wheel ({exc})") from None
        self._names = set(self.zip.namelist())
        super().__init__(origin or str(wheel))

    def _read_bytes(self, path: str) -> bytes | None:
        if path not in self._names:
            return None
        try:
            return self.zip.read(path)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            # A truncated download can still have a readable directory but broken members.
            raise SourceError(f"{self.origin}: corrupt member {path} ({exc})") from None

    def python_files(self) -> list[str]:
        return sorted(n for n in self._names if n.startswith("torch/") and n.endswith(".py"))


def _version_facts(text: str) -> dict[str, str]:
    """``__version__`` and ``git_version`` from torch/version.py, read without importing it."""
    facts: dict[str, str] = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return facts
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            facts[target.id] = value.value
    return facts


def cache_dir() -> Path:
    """Where fetched wheels are kept: ``wheels/`` in the per-user cache root ($TORCH_WALKTHROUGH_CACHE, else
    $XDG_CACHE_HOME/torch-compile-walkthrough); the built sites sit beside it (tracers/vocabulary/sites.py)."""
    return cache_root() / "wheels"


def installed_root() -> Path:
    """The directory holding the installed ``torch/`` package, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SourceError("installed: torch is not installed in this Python")
    return Path(list(spec.submodule_search_locations)[0]).parent


def open_source(spec: str, *, fetch: bool = True) -> TorchSource:
    """Open a torch tree from ``installed``, a directory, a wheel file or a release version."""
    if spec == "installed":
        return DirSource(installed_root(), origin="installed")
    path = Path(spec).expanduser()
    if path.is_dir():
        if (path / "torch" / "__init__.py").is_file():
            return DirSource(path, origin=spec)
        if path.name == "torch" and (path / "__init__.py").is_file():
            return DirSource(path.parent, origin=spec)
        raise SourceError(f"{spec}: directory holds no torch/ package")
    if path.is_file():
        return WheelSource(path, origin=spec)
    if spec.endswith(".whl") or os.sep in spec:
        raise SourceError(f"{spec}: no such file or directory")
    if VERSION_RE.match(spec):
        # 2.15 and 2.15.0 are one release (PEP 440); one spelling keeps one cached wheel.
        version = f"{spec}.0" if spec.count(".") == 1 else spec
        return WheelSource(fetch_wheel(version, allow_download=fetch), origin=spec)
    raise SourceError(f"{spec!r}: not 'installed', a directory, a wheel file or a torch version like 2.15.0")


def cached_wheel(version: str) -> Path | None:
    """A wheel of this release already in the cache; any platform's will do, the .py files are the same."""
    for wheel in sorted(cache_dir().glob(f"torch-{version}-*.whl")):
        return wheel
    return None


def fetch_wheel(version: str, *, allow_download: bool = True) -> Path:
    """The wheel of ``torch==version``, from the cache or fetched with ``pip download --no-deps``.

    pip's constraints are left out (a cap on torch must not stop reading a newer release); its
    index, find-links, certificate and proxy settings still apply."""
    wheel = cached_wheel(version)
    if wheel is not None:
        return wheel
    if not allow_download:
        raise SourceError(f"torch {version}: not in the wheel cache {cache_dir()} and downloads are off")
    target = cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    # Download into a scratch dir and move the finished file in, so an interrupted download is
    # never mistaken for a cached wheel.
    with tempfile.TemporaryDirectory(dir=target, prefix=".partial-") as scratch:
        args = [*PIP_COMMAND, "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
                "--progress-bar", "off", f"torch=={version}", "-d", scratch]
        pip_env = unconstrained("download", PIP_COMMAND)
        result = _run_with_progress(args, f"fetching torch {version} with pip download", pip_env.env)
        wheels = sorted(Path(scratch).glob("torch-*.whl"))
        if result.returncode != 0 or not wheels:
            ignored = f" (constraints left out, as reading is not installing: {pip_env.dropped_text})" \
                if pip_env.dropped else ""
            raise SourceError(f"torch {version}: pip download failed: {_pip_reason(result.stdout)}{ignored}; "
                              f"pass a torch {version} wheel file or a directory holding its torch/ instead")
        final = target / wheels[0].name
        shutil.move(str(wheels[0]), final)
    return final


def _pip_reason(output: str) -> str:
    """The one line of pip's output that says why it failed."""
    errors = [line.strip() for line in output.splitlines() if line.strip().startswith("ERROR:")]
    if errors:
        return errors[0].removeprefix("ERROR:").strip()
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _run_with_progress(args: list[str], label: str,
                       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a quiet command while a one-line elapsed-time display says what is happening."""
    done = threading.Event()
    started = time.monotonic()
    tty = sys.stderr.isatty()

    def spin() -> None:
        while not done.wait(0.5):
            sys.stderr.write(f"\r{label} ... {time.monotonic() - started:.0f}s")
            sys.stderr.flush()

    sys.stderr.write(f"{label} ...")
    sys.stderr.flush()
    spinner = threading.Thread(target=spin, daemon=True) if tty else None
    if spinner:
        spinner.start()
    try:
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    except OSError as exc:
        result = subprocess.CompletedProcess(args, 127, stdout=f"ERROR: {exc}")
    finally:
        done.set()
        if spinner:
            spinner.join()
    outcome = "done" if result.returncode == 0 else "failed"
    # On a terminal the line is redrawn in place; in a log, the first half is already there.
    prefix = f"\r{label} ..." if tty else ""
    sys.stderr.write(f"{prefix} {outcome} ({time.monotonic() - started:.0f}s)\n")
    return result
