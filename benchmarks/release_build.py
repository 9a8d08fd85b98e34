"""Time the walkthrough built for other releases: one release cold, all supported releases cold, and a rebuild of all."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import RESULTS, machine_line, write_section  # noqa: E402

ONE_TARGET_S = 30.0
ALL_TARGET_S = 180.0


def _build(args: list[str]) -> float:
    """``python -m walkthrough build ...`` in a fresh process, as a user runs it (wheels already cached)."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "walkthrough", "build", *args], cwd=ROOT,
                            capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"release_build: {' '.join(args)} failed ({result.returncode}):\n{result.stderr.strip()[-3000:]}")
    return elapsed


def _verdict(seconds: float, target: float) -> str:
    return f"target <= {target:.0f} s: {'within' if seconds <= target else 'OVER'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("release", nargs="?", default="2.15.0", help="the release built alone (default 2.15.0)")
    parser.add_argument("--runs", type=int, default=3, help="cold builds of the one release; the median is reported")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    from walkthrough.releases.catalog import supported
    from walkthrough.source import open_source

    installed = open_source("installed").base_version
    for release in {args.release, *supported()} - {installed}:
        open_source(release)  # fetch wheels that are not cached yet now: downloads are not timed
    runs = max(args.runs, 1)
    one: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(runs):
            one.append(_build(["--torch", args.release, "--out", str(Path(scratch, f"one{index}"))]))
            print(f"torch {args.release} cold {index + 1}/{runs}: {one[-1]:.1f} s", file=sys.stderr, flush=True)
        site = Path(scratch, "all")
        cold_all = _build(["--all", "--out", str(site)])
        print(f"all releases cold: {cold_all:.1f} s", file=sys.stderr, flush=True)
        again = _build(["--all", "--out", str(site)])
        print(f"all releases again, nothing changed: {again:.1f} s", file=sys.stderr, flush=True)
        pages = sum(1 for _ in site.rglob("*.html"))
    median = statistics.median(one)
    text = (
        "## release builds\n\n"
        "`python -m walkthrough build` in a fresh process, every wheel already in the cache (downloads excluded):\n\n"
        f"- torch {args.release} alone, cold (fresh output and doctrees), median of {runs}: **{median:.1f} s** "
        f"(min {min(one):.1f}, max {max(one):.1f}; {_verdict(median, ONE_TARGET_S)})\n"
        f"- all {len(supported())} releases ({', '.join(supported())}) into one site, cold: **{cold_all:.1f} s** "
        f"({_verdict(cold_all, ALL_TARGET_S)})\n"
        f"- all releases again with nothing changed (Sphinx's incremental build, verify reports reused): **{again:.1f} s**\n"
        f"- site: {pages} HTML pages\n"
        f"{machine_line()}\n"
        f"- command: `python benchmarks/release_build.py {args.release} --runs {runs}`\n"
    )
    print(text)
    if not args.no_write:
        write_section("release-builds", text)
        print(f"updated {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
