"""Time the docs build, cold (fresh output and doctrees) and incremental (one page touched), into RESULTS.md."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import RESULTS, machine_line, write_section  # noqa: E402

DOCS = ROOT / "docs"
COLD_TARGET_S = 60.0
INCREMENTAL_TARGET_S = 10.0


def _build(source: Path, out: Path, doctrees: Path) -> float:
    """One ``sphinx-build`` in a fresh process, as ``nox -s docs`` runs it (warnings are errors)."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-c", str(ROOT),
                             "-d", str(doctrees), str(source), str(out)], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"docs_build: the build failed ({result.returncode}):\n{result.stderr.strip()}")
    return elapsed


def _touched_page(source: Path) -> Path:
    """A chapter if there is one (the page a writer edits), else the landing page."""
    chapters = sorted((source / "chapters").glob("*.md"))
    return chapters[0] if chapters else source / "index.md"


def _verdict(seconds: float, target: float) -> str:
    return f"target <= {target:.0f} s: {'within' if seconds <= target else 'OVER'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="timed builds of each kind; medians are reported (default 3)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    runs = max(args.runs, 1)
    cold, incremental = [], []
    with tempfile.TemporaryDirectory() as scratch:
        # A copy of docs/, so touching a page never disturbs the files someone is editing.
        source = Path(scratch, "docs")
        shutil.copytree(DOCS, source)
        page = _touched_page(source)
        for index in range(runs):
            out, doctrees = Path(scratch, f"html{index}"), Path(scratch, f"doctrees{index}")
            cold.append(_build(source, out, doctrees))
            print(f"cold build {index + 1}/{runs}: {cold[-1]:.1f} s", file=sys.stderr, flush=True)
        # Incremental: the last cold build's output, one page's mtime moved forward, as an editor save does.
        for index in range(runs):
            stamp = time.time() + 1 + index
            os.utime(page, (stamp, stamp))
            incremental.append(_build(source, out, doctrees))
            print(f"incremental build {index + 1}/{runs}: {incremental[-1]:.1f} s", file=sys.stderr, flush=True)
        pages = sum(1 for _ in out.rglob("*.html"))
        touched = page.relative_to(source).as_posix()
    import torch  # noqa: PLC0415 - only to name the torch the excerpts came from

    cold_median, incremental_median = statistics.median(cold), statistics.median(incremental)
    text = (
        "## docs build time\n\n"
        f"`sphinx-build -W -b html -c . docs <out>` in a fresh process, median of {runs} each:\n\n"
        f"- cold (fresh output and doctrees): **{cold_median:.1f} s** (min {min(cold):.1f}, max {max(cold):.1f}; "
        f"{_verdict(cold_median, COLD_TARGET_S)})\n"
        f"- incremental after touching `docs/{touched}`: **{incremental_median:.1f} s** "
        f"(min {min(incremental):.1f}, max {max(incremental):.1f}; {_verdict(incremental_median, INCREMENTAL_TARGET_S)})\n"
        f"- site: {pages} HTML pages; excerpts from torch {torch.__version__} (git {torch.version.git_version[:12]})\n"
        f"{machine_line()}\n"
        f"- command: `python benchmarks/docs_build.py --runs {runs}`\n"
    )
    print(text)
    if not args.no_write:
        write_section("docs-build", text)
        print(f"updated {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
