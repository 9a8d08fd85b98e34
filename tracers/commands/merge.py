"""``merge DIR_OR_FILE...``: a distributed run's rank traces as one timeline, its page and the multi-rank summary."""

from __future__ import annotations

import argparse
from pathlib import Path

from tracers.ranks.merge import MergeError, find_rank_files, load_run
from tracers.torchlogs.files import is_log_name
from tracers.torchlogs.load import looks_like_log
from tracers.ranks.output import write_run
from tracers.tracefile.names import inside, rank_files
from tracers.vocabulary.printable import printable_value

from .browser import show
from .say import say

HELP = "merge the traces of a distributed run's ranks into one timeline"


def add_arguments(merge: argparse.ArgumentParser) -> None:
    """Rank traces or their directories; where the merge goes; page or not; open it; quiet."""
    merge.description = (
        "Merge rank traces (<script>-<device>-<cache>-rank<N>.json, written by the tracer under torchrun) "
        "into one Chrome trace with one process per rank on one aligned clock, write its HTML page, "
        "and print the ranks side by side with where they diverge. A rank that crashed or was "
        "killed contributes its partial trace; a rank with no trace is named; ranks whose clocks disagree "
        "beyond reason are kept, placed by their starts, and said so. The page's path is the one line on stdout.")
    merge.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                       help="rank trace files, or directories holding one run's rank traces")
    merge.add_argument("--out", metavar="FILE",
                       help="the merged trace (default: <script>-<device>-<cache>-ranks.json beside the rank traces)")
    merge.add_argument("--no-page", dest="page", action="store_false", help="write only the merged trace")
    merge.add_argument("--open", action="store_true",
                       help="open the page in a browser (none here: its path is printed, a line says so, exit 3)")
    merge.add_argument("--quiet", action="store_true", help="print only the paths written")


def run(args: argparse.Namespace) -> int:
    """0 merged, 2 nothing usable to merge (the message says why), 3 no browser to open the page in."""
    logs = [text for text in args.inputs if _torch_logs(Path(text))]
    if logs:
        shown = printable_value(logs[0])
        what = ("torch's TORCH_TRACE logs, not this tool's rank traces: `report {}` reads them and compares the ranks"
                if Path(logs[0]).is_dir() else "a TORCH_TRACE log of torch's, not a rank trace of this tool's: "
                                               "`report {}` reads it")
        if len(logs) > 1 and not Path(logs[0]).is_dir():  # report reads one path: a log, or a directory of ranks' logs
            what = (f"{len(logs)} TORCH_TRACE logs of torch's, not rank traces of this tool's: "
                    "`report {}` reads one; `report DIR` reads a directory of them "
                    "(dedicated_log_torch_trace_rank_N_*.log) and compares the ranks")
        say("merge", f"{shown}: {what.format(shown)}")
        return 2
    try:
        files = find_rank_files(args.inputs)
        merged = load_run(files)
    except MergeError as error:
        say("merge", error)
        return 2
    target = Path(args.out) if args.out else inside(files[0].parent, merged.file_name)
    status = write_run(merged, target, args.page, args.quiet)
    page = target.with_suffix(".html")
    if status or not args.page or not page.exists():
        return status
    print(printable_value(page))  # stdout: the page alone, as report prints it, for scripts
    return show(page) if args.open else 0


def _torch_logs(path: Path) -> bool:
    """A TORCH_TRACE log, or a directory of them with no rank traces of ours: what ``report`` reads. A log renamed
    (collected as ``rank1.log``) is known by its records, as ``report`` knows it, and ``report`` takes its rank from
    them: read as JSON here it would be called corrupt."""
    if path.is_dir():
        return not rank_files(path) and any(is_log_name(child.name) for child in path.iterdir())
    return path.is_file() and looks_like_log(path)
