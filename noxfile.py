"""nox sessions: tests, docs, releases, trace, record, compare, measure, verify, lock, bench and clean, against the reference torch."""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).parent
nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"


def _reference_torch() -> str:
    """Read the pin from tracers/vocabulary/releases.py without importing the package (nox runs outside it)."""
    tree = ast.parse((ROOT / "tracers" / "vocabulary" / "releases.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "REFERENCE_TORCH":
            return ast.literal_eval(node.value)
    raise RuntimeError("REFERENCE_TORCH is not set in tracers/vocabulary/releases.py")


REFERENCE_TORCH = _reference_torch()
# The transformers release the corpus's truth files were recorded with (tests/corpus/README.md).
CORPUS_TRANSFORMERS = "5.24.0"


def _install(session: nox.Session, *extras: str) -> None:
    """The reference torch plus this project, into the session's own venv; says which torch the session runs against."""
    # numpy beside torch, as in any real torch environment (torch warns on import without it).
    # pip prints nothing while it works here; on Linux, PyPI's torch is the CUDA build (gigabytes), so say so.
    session.log(f"installing torch {REFERENCE_TORCH} (a first run on Linux downloads gigabytes of CUDA libraries "
                "unless PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu is set: see the README)")
    session.install(f"torch=={REFERENCE_TORCH}", "numpy")
    spec = f".[{','.join(extras)}]" if extras else "."
    session.install("-e", spec)
    session.run("python", "-c", _SAY_TORCH, silent=False)


_SAY_TORCH = "import torch; print(f'torch {torch.__version__} (git {torch.version.git_version[:12]})')"
# One venv per torch release, shared by every session that needs only the reference torch and this package (a venv
# per session was 1.1 GB and a torch install each); a session's extras are added to it the first time it asks.
SHARED = ROOT / ".nox" / f"torch-{REFERENCE_TORCH}"
_STAMP = SHARED / "torch-compile-walkthrough-installed.json"  # what is in it, and for which pyproject.toml


# ``@shared_session``: a session that runs in the shared venv (``_shared``), not in a venv of its own.
shared_session = functools.partial(nox.session, venv_backend="none")


def _shared(session: nox.Session, *extras: str, packages: tuple[str, ...] = ()) -> str:
    """The shared venv's Python, with the reference torch, this package with ``extras`` and ``packages`` installed
    where they are not yet; says which torch the session runs against. Sessions run their tools as ``python -m``."""
    python = SHARED / "bin" / "python"
    if not python.exists():
        session.run(sys.executable, "-m", "venv", str(SHARED))
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]  # dependencies changed: again
    had = json.loads(_STAMP.read_text()) if _STAMP.exists() else {}
    if had.get("key") != key:
        had = {"key": key, "extras": [], "packages": []}
    want = {"key": key, "extras": sorted({*had["extras"], *extras}), "packages": sorted({*had["packages"], *packages})}
    if want != had or not _STAMP.exists():
        session.log(f"installing torch {REFERENCE_TORCH} and this package into .nox/{SHARED.name}/ (shared by "
                    "the sessions; a first run on Linux downloads gigabytes of CUDA libraries unless "
                    "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu is set: see the README)")
        spec = f".[{','.join(want['extras'])}]" if want["extras"] else "."
        session.run(str(python), "-m", "pip", "install", f"torch=={REFERENCE_TORCH}", "numpy",
                    "-e", spec, *want["packages"])
        _STAMP.write_text(json.dumps(want))
    # What the session starts (pytest's subprocesses, torchrun, tlparse) finds the shared venv's tools first.
    session.env["VIRTUAL_ENV"] = str(SHARED)
    session.env["PATH"] = os.pathsep.join([str(SHARED / "bin"), os.environ.get("PATH", "")])
    session.run(str(python), "-c", _SAY_TORCH, silent=False)
    return str(python)


@shared_session
def tests(session: nox.Session) -> None:
    """Run the test suite (real torch.compile on tiny programs, and the corpus of real library programs)."""
    python = _shared(session, "test", packages=(f"transformers=={CORPUS_TRANSFORMERS}",))  # the corpus's programs
    session.run(python, "-m", "pytest", *session.posargs)


@shared_session
def docs(session: nox.Session) -> None:
    """Build the site into build/html (warnings are errors; reads recorded traces, compiles nothing)."""
    python = _shared(session, "docs")
    session.run(python, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-c", ".", "docs", "build/html", *session.posargs)
    session.log(f"site: {ROOT / 'build' / 'html' / 'index.html'}")


@shared_session
def releases(session: nox.Session) -> None:
    """Build the walkthrough for every supported torch release into build/releases/ (one site, a version switcher).

    nox -s releases -- --releases 2.13.0,2.15.0 builds some; each release is read from its wheel, nothing installed.
    """
    python = _shared(session, "docs")
    session.run(python, "-m", "walkthrough", "build", "--all", *session.posargs)  # it prints where the site is


@shared_session
def trace(session: nox.Session) -> None:
    """Trace a script through torch.compile: nox -s trace -- [--device cuda] [--cache warm] SCRIPT|-m MODULE [ARGS...]."""
    if not session.posargs:
        session.error("usage: nox -s trace -- [OPTIONS] SCRIPT|-m MODULE [ARGS...]  (see python -m tracers trace --help)")
    python = _shared(session, "deep", "page", "decompile")  # decompile: Dynamo's rewritten code as Python (depyf)
    session.run(python, "-m", "tracers", "trace", *session.posargs)


@shared_session
def record(session: nox.Session) -> None:
    """Re-record the CPU traces of docs/examples into docs/_traces/cpu/<torch>/ (-- --torch 2.15.0: with that release, in its own venv)."""
    python = _shared(session, "page", "decompile")
    # Another release's venv is the site's business (walkthrough/releases/venvs.py); the tracer records in it.
    command = ["walkthrough", "record"] if "--torch" in session.posargs else ["tracers", "record"]
    session.run(python, "-m", *command, *session.posargs)


@nox.session
def compare(session: nox.Session) -> None:
    """Trace one script under two torch releases and show what changed for it:
    nox -s compare -- --torch 2.13.0 --torch 2.14.1 [--repeat 3] [--build cpu|cuda] [--device cuda] SCRIPT [ARGS].

    Both sides run one build of torch: CPU builds on a machine without a GPU (this session's reference torch too),
    CUDA builds with one. A release other than this venv's gets a venv in the per-user cache, made once; the
    command says where, how big, and how to remove it."""
    if not session.posargs:
        session.error("usage: nox -s compare -- --torch A --torch B [OPTIONS] SCRIPT|-m MODULE [ARGS...]  "
                      "(see python -m walkthrough compare --help)")
    args = list(session.posargs)
    build = args[args.index("--build") + 1] if "--build" in args[:-1] else ("cuda" if shutil.which("nvidia-smi")
                                                                            else "cpu")
    if build == "cpu":
        # The local version pins the build: pip takes a +cpu wheel (PyTorch's CPU index, or one your pip config
        # finds) or fails; it never falls back to PyPI's Linux wheel, a CUDA build with gigabytes of libraries.
        session.install("--retries", "1", "--extra-index-url", "https://download.pytorch.org/whl/cpu",
                        f"torch=={REFERENCE_TORCH}+cpu", "numpy")
    else:
        session.install(f"torch=={REFERENCE_TORCH}", "numpy")
    session.install("-e", ".[page]")  # the comparison's page uses the trace page's layout (Jinja2)
    session.run("python", "-c", "import torch; print(f'torch {torch.__version__} (git {torch.version.git_version[:12]})')",
                silent=False)
    session.run("python", "-m", "walkthrough", "compare", *args)


@shared_session
def measure(session: nox.Session) -> None:
    """Time eager against torch.compile for an example: nox -s measure -- [--device cuda] [EXAMPLE.py].

    Writes docs/_measure/<device>/<torch>/<example>.json and its SVG charts (default: docs/examples/measure_mlp.py).
    """
    python = _shared(session)
    args = session.posargs if any(arg.endswith(".py") for arg in session.posargs) else \
        [*session.posargs, "docs/examples/measure_mlp.py"]
    session.run(python, "-m", "tracers", "measure", *args)


@shared_session
def toolbox(session: nox.Session) -> None:
    """Run each debugging tool on one example and record what it showed: docs/_toolbox/<torch>/ (chapter 18).

    nox -s toolbox -- [--example SCRIPT] [--tools IDS] [--device cuda]; see python -m walkthrough.toolbox record --help.
    """
    python = _shared(session, "toolbox", "page")  # tlparse and depyf; the toolkit's own HTML page needs Jinja2
    session.run(python, "-m", "walkthrough.toolbox", "record", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the tracer's overhead (one process, per rank under torchrun, counting calls), trace size, the page of a
    12-layer GPT-2 (size, first screen in Chromium), reading TORCH_TRACE rank logs (one 3.5 MB log, 8 ranks merged,
    8 ranks of 50 MB, and beside tlparse on its own 7-rank input), single logs beside tlparse (small, medium and large;
    1k to 16k compiles for growth: time and peak memory; 650,000 timed regions; start-up), verify's speed, the docs
    build, the release builds and a warm release comparison; writes benchmarks/RESULTS.md."""
    _install(session, "docs", "deep")  # the docs build benchmark runs sphinx-build; deep mode is measured too
    # The page at real scale: a GPT-2 with random weights (nothing downloaded), drawn by the system's Chromium;
    # tlparse (Rust, a wheel on PyPI) to time reading rank logs beside it.
    session.install("transformers", "playwright", "tlparse")
    session.run("python", "benchmarks/run.py", *session.posargs)


@shared_session
def verify(session: nox.Session) -> None:
    """Check excerpts, hook targets and facts against a release: nox -s verify -- 2.15.0 (or a wheel, a dir).

    Prints the table; writes build/verify/<release>.md and .json. Exit 1 means something drifted.
    """
    python = _shared(session)
    target, *extra = session.posargs or ["installed"]
    stem = ROOT / "build" / "verify" / Path(target).name.removesuffix(".whl")
    session.run(python, "-m", "walkthrough", "verify", "--against", target,
                "--markdown", f"{stem}.md", "--json", f"{stem}.json", *extra)


@shared_session
def lock(session: nox.Session) -> None:
    """Refresh docs/walkthrough.lock.json against the reference torch (after editing pages or the stages table)."""
    python = _shared(session)
    session.run(python, "-m", "walkthrough", "lock", *session.posargs)


@shared_session
def corpus(session: nox.Session) -> None:
    """Trace the corpus of real library programs (tests/corpus/) and print torch's counts and our verdict per program:
    nox -s corpus -- [--only NAME,NAME] [--fast] [--keep DIR] [--json FILE]."""
    python = _shared(session, "test", packages=(f"transformers=={CORPUS_TRANSFORMERS}",))
    session.run(python, "-m", "tests.corpus.run", "--results", "benchmarks/RESULTS.md", *session.posargs)


def made_by_the_tool() -> list[Path]:
    """The venvs and caches this project makes: nox's venvs, the other releases' venvs, the per-user cache
    (the rule of tracers/vocabulary/sites.py's cache_root: built sites and fetched wheels)."""
    override = os.environ.get("TORCH_WALKTHROUGH_CACHE")
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    cache = Path(override).expanduser() if override else Path(base).expanduser() / "torch-compile-walkthrough"
    return [ROOT / ".nox", ROOT / ".venvs", cache]


def _size(path: Path) -> int:
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())


@nox.session(venv_backend="none")
def clean(session: nox.Session) -> None:
    """List the venvs and caches this tool made, with their sizes; nox -s clean -- --yes removes them."""
    found = [path for path in made_by_the_tool() if path.exists()]
    for path in found:
        session.log(f"{path}  ({_size(path) / 1e9:.2f} GB)")
    if not found:
        session.log("nothing to remove")
    elif "--yes" not in session.posargs:
        session.log("dry run: nothing removed; nox -s clean -- --yes removes the above")
    else:
        for path in found:
            shutil.rmtree(path)
            session.log(f"removed {path}")
