"""Time a warm ``python -m walkthrough compare`` (the release venv already made) of a small program; RESULTS.md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

PROGRAM = "tests/programs/upgrade_check.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("release", nargs="?", default="2.14.1", help="the release compared with the reference")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args, _ = parser.parse_known_args()
    from tracers.vocabulary.releases import REFERENCE_TORCH
    from walkthrough.releases.venvs import release_python
    from walkthrough.source import SourceError

    try:
        release_python(args.release, ROOT / ".venvs")  # made once here if missing: not part of what is timed
    except SourceError as exc:
        sys.exit(f"compare_speed: {exc}")
    with tempfile.TemporaryDirectory() as scratch:
        command = [sys.executable, "-m", "walkthrough", "compare", "--torch", REFERENCE_TORCH, "--torch",
                   args.release, "--out", scratch, PROGRAM]
        started = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            sys.exit(f"compare failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
        report = json.loads(next(Path(scratch).glob("*/comparison.json")).read_text())
    runs = {side: sum(run["seconds"] for run in report[side]["runs"]) for side in ("a", "b")}
    traced = runs["a"] + runs["b"]
    lines = [
        "## release comparison (warm: venvs made)",
        "",
        f"`python -m walkthrough compare --torch {REFERENCE_TORCH} --torch {args.release} {PROGRAM}` with "
        f".venvs/torch-{args.release} already made, one run: **{wall:.1f} s** in all.",
        "",
        f"- traced under {REFERENCE_TORCH}: {runs['a']:.1f} s; under {args.release}: {runs['b']:.1f} s "
        f"(each a fresh process, cold compile caches)",
        f"- everything else (finding the venvs, analysis, the walkthrough's what-changed entries, report and page): "
        f"{wall - traced:.1f} s, {(wall - traced) / wall:.0%} of the whole; the comparison takes "
        f"{wall / traced:.2f}× the two traces' time",
        "- the machine is shared: seconds vary from run to run; the share spent outside the traces is the number to "
        "compare",
    ]
    if args.no_write:
        print("\n".join(lines))
        return 0
    publish("release-compare", lines, f"python benchmarks/compare_speed.py {args.release}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
