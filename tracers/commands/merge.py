"""``merge DIR_OR_FILE...``: a distributed run's rank traces as one timeline, its page and the multi-rank summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracers.ranks.merge import MergeError, find_rank_files, load_run
from tracers.ranks.output import write_run

HELP = "merge the traces of a distributed run's ranks into one timeline"


def add_arguments(merge: argparse.ArgumentParser) -> None:
    """Rank traces or their directories; where the merge goes; page or not; quiet."""
    merge.description = (
        "Merge rank traces (<script>-<device>-<cache>-rank<N>.json, written by the tracer under torchrun) "
        "into one Chrome trace with one process per rank on one aligned clock, write its HTML page, "
        "and print the ranks side by side with where they diverge. A rank that crashed or was "
        "killed contributes its partial trace; a rank with no trace is named.")
    merge.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                       help="rank trace files, or directories holding one run's rank traces")
    merge.add_argument("--out", metavar="FILE",
                       help="the merged trace (default: <script>-<device>-<cache>-ranks.json beside the rank traces)")
    merge.add_argument("--no-page", dest="page", action="store_false", help="write only the merged trace")
    merge.add_argument("--quiet", action="store_true", help="print only the paths written")


def run(args: argparse.Namespace) -> int:
    """0 merged, 2 nothing usable to merge (the message says why)."""
    try:
        files = find_rank_files(args.inputs)
        merged = load_run(files)
    except MergeError as error:
        print(f"merge: {error}", file=sys.stderr)
        return 2
    target = Path(args.out) if args.out else files[0].parent / merged.file_name
    return write_run(merged, target, args.page, args.quiet)
