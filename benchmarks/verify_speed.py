"""Time ``python -m walkthrough verify`` against one release (download excluded) and record it in RESULTS.md."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import RESULTS, machine_line, write_section  # noqa: E402

BUDGET_S = 15.0


def _run_once(wheel: Path, out: Path) -> tuple[float, dict]:
    """One verify in a fresh process, as a maintainer runs it; verify exits 1 on drift, which is fine here."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "walkthrough", "verify", "--against", str(wheel),
                             "--json", str(out)], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        sys.exit(f"verify failed ({result.returncode}): {result.stderr.strip()}")
    return elapsed, json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("release", nargs="?", default="2.15.0", help="torch release to verify against (default 2.15.0)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs; the median is reported (default 5)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from walkthrough.source import SourceError, fetch_wheel, open_source

    try:
        wheel = fetch_wheel(args.release)  # the download is not part of what is timed
        installed = open_source("installed")
    except SourceError as exc:
        sys.exit(f"verify_speed: {exc}")
    with tempfile.TemporaryDirectory() as scratch:
        _run_once(wheel, Path(scratch) / "warmup.json")  # page cache and .pyc files, as on a second run
        times, report = [], {}
        for index in range(max(args.runs, 1)):
            elapsed, report = _run_once(wheel, Path(scratch) / f"run{index}.json")
            times.append(elapsed)
    median = statistics.median(times)
    counts = ", ".join(f"{n} {s}" for s, n in report["summary"].items() if n)
    checked = len(report["symbols"]) + len(report["excerpts"]) + len(report["facts"])
    text = (
        "## walkthrough verify speed\n\n"
        f"`python -m walkthrough verify --against {args.release}` with the wheel already cached (download "
        f"excluded), a fresh process per run, median of {len(times)}: **{median:.2f} s** "
        f"(min {min(times):.2f}, max {max(times):.2f}; budget {BUDGET_S:.0f} s: "
        f"{'within' if median <= BUDGET_S else 'OVER'}).\n\n"
        f"- checked: {checked} entries ({counts}); verify's own time {report['seconds']:.2f} s of the last run\n"
        f"- baseline torch {installed.version} (git {installed.git_version[:12]}), target {report['target']['torch_version']}\n"
        f"{machine_line()}\n"
        f"- command: `python benchmarks/verify_speed.py {args.release} --runs {args.runs}`\n"
    )
    print(text)
    if not args.no_write:
        write_section("verify-speed", text)
        print(f"updated {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
