"""nox sessions: tests, docs, releases, trace, record, compare, measure, verify, lock, bench and clean, against the reference torch."""

from __future__ import annotations

import ast
import os
import shutil
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
    """The reference torch plus this project; says which torch the session runs against."""
    # numpy beside torch, as in any real torch environment (torch warns on import without it).
    # pip prints nothing while it works here; on Linux, PyPI's torch is the CUDA build (gigabytes), so say so.
    session.log(f"installing torch {REFERENCE_TORCH} (a first run on Linux downloads gigabytes of CUDA libraries "
                "unless PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu is set: see the README)")
    session.install(f"torch=={REFERENCE_TORCH}", "numpy")
    spec = f".[{','.join(extras)}]" if extras else "."
    session.install("-e", spec)
    session.run(
        "python", "-c",
        "import torch; print(f'torch {torch.__version__} (git {torch.version.git_version[:12]})')",
        silent=False,
    )


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (real torch.compile on tiny programs, and the corpus of real library programs)."""
    _install(session, "test")
    session.install(f"transformers=={CORPUS_TRANSFORMERS}")  # the corpus's Hugging Face programs
    session.run("pytest", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site into build/html (warnings are errors; reads recorded traces, compiles nothing)."""
    _install(session, "docs")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "-c", ".", "docs", "build/html", *session.posargs)
    session.log(f"site: {ROOT / 'build' / 'html' / 'index.html'}")


@nox.session
def releases(session: nox.Session) -> None:
    """Build the walkthrough for every supported torch release into build/releases/ (one site, a version switcher).

    nox -s releases -- --releases 2.13.0,2.15.0 builds some; each release is read from its wheel, nothing installed.
    """
    _install(session, "docs")
    session.run("python", "-m", "walkthrough", "build", "--all", *session.posargs)  # it prints where the site is


@nox.session
def trace(session: nox.Session) -> None:
    """Trace a script through torch.compile: nox -s trace -- [--device cuda] [--cache warm] SCRIPT|-m MODULE [ARGS...]."""
    if not session.posargs:
        session.error("usage: nox -s trace -- [OPTIONS] SCRIPT|-m MODULE [ARGS...]  (see python -m tracers trace --help)")
    _install(session, "deep", "page", "decompile")  # decompile: Dynamo's rewritten code as Python (depyf)
    session.run("python", "-m", "tracers", "trace", *session.posargs)


@nox.session
def record(session: nox.Session) -> None:
    """Re-record the CPU traces of docs/examples into docs/_traces/cpu/<torch>/ (-- --torch 2.15.0: with that release, in its own venv)."""
    _install(session, "page", "decompile")
    # Another release's venv is the site's business (walkthrough/releases/venvs.py); the tracer records in it.
    command = ["walkthrough", "record"] if "--torch" in session.posargs else ["tracers", "record"]
    session.run("python", "-m", *command, *session.posargs)


@nox.session
def compare(session: nox.Session) -> None:
    """Trace one script under two torch releases and show what changed for it:
    nox -s compare -- --torch 2.13.0 --torch 2.14.1 [--repeat 3] [--device cuda] [--cache warm] SCRIPT|-m MODULE [ARGS].

    The reference release runs in this session's venv; another gets its own .venvs/torch-<release> (made once)."""
    if not session.posargs:
        session.error("usage: nox -s compare -- --torch A --torch B [OPTIONS] SCRIPT|-m MODULE [ARGS...]  "
                      "(see python -m walkthrough compare --help)")
    _install(session, "page")  # the comparison's page uses the trace page's styles (Pygments)
    session.run("python", "-m", "walkthrough", "compare", *session.posargs)


@nox.session
def measure(session: nox.Session) -> None:
    """Time eager against torch.compile for an example: nox -s measure -- [--device cuda] [EXAMPLE.py].

    Writes docs/_measure/<device>/<torch>/<example>.json and its SVG charts (default: docs/examples/measure_mlp.py).
    """
    _install(session)
    args = session.posargs if any(arg.endswith(".py") for arg in session.posargs) else \
        [*session.posargs, "docs/examples/measure_mlp.py"]
    session.run("python", "-m", "tracers", "measure", *args)


@nox.session
def toolbox(session: nox.Session) -> None:
    """Run each debugging tool on one example and record what it showed: docs/_toolbox/<torch>/ (chapter 18).

    nox -s toolbox -- [--example SCRIPT] [--tools IDS] [--device cuda]; see python -m walkthrough.toolbox record --help.
    """
    _install(session, "toolbox", "page")  # tlparse and depyf; the toolkit's own HTML page needs Pygments
    session.run("python", "-m", "walkthrough.toolbox", "record", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the tracer's overhead (one process, per rank under torchrun, counting calls), trace size, the page of a
    12-layer GPT-2 (size, first screen in Chromium), reading TORCH_TRACE rank logs (one 3.5 MB log, 8 ranks merged,
    8 ranks of 50 MB, and beside tlparse on its own 7-rank input), verify's speed, the docs build, the release builds
    and a warm release comparison; writes benchmarks/RESULTS.md."""
    _install(session, "docs", "deep")  # the docs build benchmark runs sphinx-build; deep mode is measured too
    # The page at real scale: a GPT-2 with random weights (nothing downloaded), drawn by the system's Chromium;
    # tlparse (Rust, a wheel on PyPI) to time reading rank logs beside it.
    session.install("transformers", "playwright", "tlparse")
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session
def verify(session: nox.Session) -> None:
    """Check excerpts, hook targets and facts against a release: nox -s verify -- 2.15.0 (or a wheel, a dir).

    Prints the table; writes build/verify/<release>.md and .json. Exit 1 means something drifted.
    """
    _install(session)
    target, *extra = session.posargs or ["installed"]
    stem = ROOT / "build" / "verify" / Path(target).name.removesuffix(".whl")
    session.run("python", "-m", "walkthrough", "verify", "--against", target,
                "--markdown", f"{stem}.md", "--json", f"{stem}.json", *extra)


@nox.session
def lock(session: nox.Session) -> None:
    """Refresh docs/walkthrough.lock.json against the reference torch (after editing pages or the stages table)."""
    _install(session)
    session.run("python", "-m", "walkthrough", "lock", *session.posargs)


@nox.session
def corpus(session: nox.Session) -> None:
    """Trace the corpus of real library programs (tests/corpus/) and print torch's counts and our verdict per program:
    nox -s corpus -- [--only NAME,NAME] [--fast] [--keep DIR] [--json FILE]."""
    _install(session, "test")
    session.install(f"transformers=={CORPUS_TRANSFORMERS}")
    session.run("python", "-m", "tests.corpus.run", "--results", "benchmarks/RESULTS.md", *session.posargs)


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
