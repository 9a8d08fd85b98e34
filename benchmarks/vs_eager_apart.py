"""What ``trace --vs-eager`` in two processes costs beside the one-process form it replaced, on whole runs.

The traced run is now a child of a process that holds no torch; once it has exited, that process runs the eager run,
reads the saved trace, writes it again with the eager timings and renders the summary and page. Paired whole runs of
``python -m tracers trace --vs-eager`` as a user runs it, alternating which goes first: this tree against a checkout
of REV (default: the last commit with the one-process form), on an aot_eager script of many small calls and on
chapter 17's Inductor training loop. Reports the median of the pairs' differences and ratios. Usage:

    python benchmarks/vs_eager_apart.py [--pairs 5] [--rev 1b5aac1]
"""

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

from benchmarks.results import publish  # noqa: E402

SCRIPTS = {"tiny_calls.py (aot_eager, 2,200 calls)": ROOT / "tests" / "scripts" / "tiny_calls.py",
           "speed_training.py (Inductor, 40 steps)": ROOT / "docs" / "examples" / "speed_training.py"}


def _run(tree: Path, script: Path) -> float:
    """One whole ``trace --vs-eager`` from ``tree``, in seconds (a fresh output folder, the page written)."""
    with tempfile.TemporaryDirectory(prefix="vs-eager-apart-") as out:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tracers", "trace", "--vs-eager", "--quiet", "--out", out, str(script)],
                       cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--rev", default="1b5aac1", help="the one-process form (default: 1b5aac1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vs-eager-rev-") as scratch:
        old = Path(scratch, "tree")
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), args.rev], check=True)
        try:
            lines = ["## `--vs-eager` in two processes: what the eager run after the traced process costs", "",
                     "Whole runs of `python -m tracers trace --vs-eager --quiet SCRIPT` (page written), the eager run "
                     f"after the traced process (this tree) against the one-process form ({args.rev}); {args.pairs} "
                     "pairs alternating which goes first, the first pair untimed:", "",
                     "| script | one process | two processes | difference (median of pairs) | ratio |",
                     "|---|---|---|---|---|"]
            for label, script in SCRIPTS.items():
                _run(ROOT, script), _run(old, script)  # warm the file cache and Inductor's own imports
                pairs = []
                for index in range(args.pairs):
                    trees = (old, ROOT) if index % 2 else (ROOT, old)
                    timed = {tree: _run(tree, script) for tree in trees}
                    pairs.append((timed[old], timed[ROOT]))
                    print(f"{label}: {timed[old]:.2f} s vs {timed[ROOT]:.2f} s", file=sys.stderr, flush=True)
                before = statistics.median(one for one, _ in pairs)
                after = statistics.median(two for _, two in pairs)
                difference = statistics.median(two - one for one, two in pairs)
                ratio = statistics.median(two / one for one, two in pairs)
                lines.append(f"| {label} | {before:.2f} s | {after:.2f} s | {difference:+.2f} s | {ratio:.3f} |")
            lines += ["", "The difference is one more interpreter (the parent, which imports no torch) and the trace read "
                      "and written again with the eager timings; the eager run itself is the same process as before."]
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
    publish("vs-eager-apart", lines, f"python benchmarks/vs_eager_apart.py --pairs {args.pairs} --rev {args.rev}")


if __name__ == "__main__":
    main()
