"""Installed, not cloned: the wheel in a fresh venv away from the checkout builds the walkthrough, and a page links it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.packaging import WHEEL_BUDGET

from tests.conftest import ROOT

pytestmark = [pytest.mark.installed, pytest.mark.sphinx]

INSTALL_PAGE = ROOT / "docs" / "using" / "install.md"  # the README links here for the install routes
# What a clean clone holds: the copy the wheel is built from leaves out builds, venvs and caches (.gitignore's).
_NOT_SOURCE = {".git", "build", "dist", ".nox", ".venvs", "traces", "__pycache__", ".pytest_cache", ".ruff_cache",
               ".benchmarks", ".whl", ".gl"}
TINY = """\
import torch


@torch.compile
def f(x):
    return torch.sin(x) + 1


f(torch.randn(8))
"""


def _copy_ignore(directory: str, names: list[str]) -> set[str]:
    top = Path(directory).resolve() == ROOT
    return {n for n in names if n in _NOT_SOURCE and (n not in ("traces", "dist") or top) or n.endswith(".egg-info")}


def _run(args: list, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)


def install_page_wheel_route() -> tuple[str, str]:
    """The "Install" lines for the wheel (docs/using/install.md), word for word: the line that builds it, the line that
    installs it."""
    section = INSTALL_PAGE.read_text(encoding="utf-8").split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in section.splitlines() if line.startswith("python -m pip ")]
    build = next(command for command in commands if command.startswith("python -m pip wheel "))
    install = next(command for command in commands if "--find-links dist" in command)
    return build, install


def _shell(line: str, cwd: Path, python_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """An install line as a user's shell runs it, with ``python`` the one in ``python_dir``."""
    env = {**env, "PATH": f"{python_dir}{os.pathsep}{env.get('PATH', '')}"}
    return _run(["bash", "-c", line], cwd, env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """The wheel built from a clean copy of the tree and installed into a fresh venv, both as the install page says."""
    base = tmp_path_factory.mktemp("installed")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=_copy_ignore)  # also keeps the shared tree's build/ out of it
    build_line, install_line = install_page_wheel_route()
    built = _shell(build_line, source, Path(sys.executable).parent, os.environ.copy())
    assert built.returncode == 0, built.stderr
    (wheel,) = (source / "dist").glob("*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # torch and the package in one line, numpy with it (a dependency): nothing added that the install page leaves out.
    package = _shell(install_line, source, venv / "bin", os.environ.copy())
    assert package.returncode == 0, f"{install_line}\n{package.stderr[-3000:]}"
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "TORCH_WALKTHROUGH_CACHE", "VIRTUAL_ENV")}
    env.update(XDG_CACHE_HOME=str(base / "cache"), TORCHINDUCTOR_CACHE_DIR=str(base / "inductor"), NO_COLOR="1",
               BROWSER="echo", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return {"source": source, "wheel": wheel, "venv": venv, "bin": venv / "bin", "cwd": elsewhere, "env": env,
            "site": base / "cache" / "torch-compile-walkthrough" / "site" / REFERENCE_TORCH}


def test_the_wheel_carries_the_site_within_its_budget(installed):
    wheel = installed["wheel"]
    assert wheel.stat().st_size <= WHEEL_BUDGET, f"{wheel.stat().st_size / 2**20:.1f} MB"
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("walkthrough/_site/conf.py", "walkthrough/_site/docs/index.md",
                 "walkthrough/_site/docs/walkthrough.lock.json", "walkthrough/_site/docs/_static/theme.css",
                 f"walkthrough/_site/docs/_traces/cpu/{REFERENCE_TORCH}/mlp-cpu-cold.json",
                 "walkthrough/_site/docs/examples/mlp.py", "tracers/vocabulary/sites.py"):
        assert name in names, name


def test_the_sdist_carries_the_site_sources_too(installed, tmp_path):
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} here; the build needs >= 77 (pyproject's build-system)")
    script = f"from setuptools.build_meta import build_sdist; print(build_sdist({str(tmp_path)!r}))"
    made = _run([sys.executable, "-c", script], installed["source"], os.environ.copy())
    assert made.returncode == 0, made.stderr
    with tarfile.open(tmp_path / made.stdout.strip().splitlines()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"conf.py", "docs/index.md", "docs/walkthrough.lock.json", "walkthrough/packaging.py"} <= names


def test_installed_build_then_a_trace_page_anywhere_links_into_it(installed):
    where = _run([installed["bin"] / "python", "-c", "import walkthrough; print(walkthrough.__file__)"],
                 installed["cwd"], installed["env"])
    assert not Path(where.stdout.strip()).is_relative_to(ROOT)  # the installed package, not the checkout

    build = _run([installed["bin"] / "torch-compile-walkthrough", "build"], installed["cwd"], installed["env"])
    assert build.returncode == 0, build.stdout + build.stderr
    site = installed["site"]
    assert build.stdout.startswith(f"site: {site / 'index.html'} (torch {REFERENCE_TORCH}, ")
    assert (site / "chapters" / "02-frame-evaluation.html").is_file()

    (installed["cwd"] / "tiny.py").write_text(TINY)
    trace = _run([installed["bin"] / "torch-compile-trace", "trace", "--quiet", "tiny.py"], installed["cwd"],
                 installed["env"])
    assert trace.returncode == 0, trace.stdout + trace.stderr
    page = (installed["cwd"] / "traces" / "tiny-cpu-cold.html").read_text()
    base = site.resolve().as_uri()
    linked = set(re.findall(rf'href="{re.escape(base)}/(chapters/[^"]+\.html)"', page))
    assert linked and all((site / chapter).is_file() for chapter in linked)
    assert f"Chapter links go to the walkthrough built for torch {REFERENCE_TORCH} in the user cache" in page

    opened = _run([installed["bin"] / "python", "-m", "walkthrough", "open"], installed["cwd"], installed["env"])
    assert opened.returncode == 0, opened.stderr
    assert f"opening {site / 'index.html'}" in opened.stdout and "building" not in opened.stderr  # built: only opened


def test_installed_verify_checks_the_installed_torch_against_the_carried_lock(installed):
    verify = _run([installed["bin"] / "torch-compile-walkthrough", "verify"], installed["cwd"], installed["env"])
    assert verify.returncode == 0, verify.stdout + verify.stderr  # the reference torch: nothing drifted
    assert f"torch {REFERENCE_TORCH}" in verify.stdout


def test_a_plain_trace_prints_no_warning(installed):
    """Installed as the install page says, a plain trace of a small script prints its summary and no warning
    (without numpy, every import of torch warned "Failed to initialize NumPy")."""
    # The eager backend: torch's import and Dynamo are what warned; Inductor's C++ build would only add time.
    (installed["cwd"] / "small.py").write_text(TINY.replace("@torch.compile", '@torch.compile(backend="eager")'))
    trace = _run([installed["bin"] / "torch-compile-trace", "trace", "small.py"], installed["cwd"], installed["env"])
    output = trace.stdout + trace.stderr
    assert trace.returncode == 0, output
    assert "Findings" in output and "Stage tree" in output  # the whole summary, not only the paths written
    assert (installed["cwd"] / "traces" / "small-cpu-cold.json").is_file()
    warnings = [line for line in output.splitlines() if re.search(r"\b\w*Warning\b|warnings\.warn|NumPy", line)]
    assert not warnings, "\n".join(warnings)


def test_installed_commands_introduce_themselves_by_their_own_names(installed):
    for script, command in (("torch-compile-trace", "trace"), ("torch-compile-walkthrough", "open")):
        shown = _run([installed["bin"] / script, "--help"], installed["cwd"], installed["env"])
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.startswith(f"usage: {script} ") and f"{script} {command}" in shown.stdout
        assert "``" not in shown.stdout and "python -m" not in shown.stdout
