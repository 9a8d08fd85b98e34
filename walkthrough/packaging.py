"""Build step (pyproject's cmdclass): the wheel and sdist carry conf.py and docs/, so an install builds the site."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist

# setuptools loads this file by path from the project root (or an unpacked sdist), without the package.
ROOT = Path(__file__).resolve().parent.parent
SITE = Path("walkthrough") / "_site"  # inside the package; walkthrough/bundle.py reads it from there
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints"}
WHEEL_BUDGET = 25 * 1024 * 1024  # the wheel's size limit: the installed test holds it, `nox -s bench` reports against it


def site_files(root: Path = ROOT) -> list[str]:
    """conf.py and every file under docs/ (chapters, examples, recordings, lock, static), as relative paths."""
    files = ["conf.py"]
    for path in sorted((root / "docs").rglob("*")):
        relative = path.relative_to(root)
        hidden = any(part.startswith(".") or part in _SKIP_DIRS for part in relative.parts)
        if path.is_file() and not hidden and path.suffix != ".pyc":
            files.append(relative.as_posix())
    return files


class BuildPy(_build_py):
    """setuptools' build_py, then the site's sources copied to walkthrough/_site/ in the build dir."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs from the checkout, which has conf.py and docs/ itself
        target = Path(self.build_lib) / SITE
        shutil.rmtree(target, ignore_errors=True)  # a reused build/ dir must not keep pages deleted since
        for relative in site_files():
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / relative, destination)


class Sdist(_sdist):
    """setuptools' sdist plus the site's sources, so a wheel built from the sdist carries them too."""

    def make_distribution(self) -> None:
        # setuptools' sdist takes its list from egg_info's manifest (no MANIFEST.in here): add to it just before use
        self.filelist.extend(f for f in site_files() if f not in set(self.filelist.files))
        super().make_distribution()
