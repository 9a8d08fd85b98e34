"""``diff A B``: two traces (or TORCH_TRACE logs) stage by stage, their kernels and their speed, in the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracers.analysis.diff import diff
from tracers.terminal.diff import render_diff
from tracers.terminal.style import style_for
from tracers.torchlogs.load import LogError, load_logs, looks_like_log
from tracers.tracefile.chrome import TraceFileError, load
from tracers.tracefile.events import Trace
from tracers.tracefile.validation import Dropped

from .inputs import not_a_trace
from .say import say

HELP = "compare two traces stage by stage"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The two traces."""
    parser.description = ("Show which findings went away, appeared or changed (before and after a fix: the script may "
                          "have another name), then which stages and targets ran in one trace and not the other, time "
                          "per stage side by side, and the generated kernels (e.g. CPU vs CUDA, cold vs warm, two "
                          "torch releases).")
    parser.add_argument("a", metavar="A.json", help="a trace this tool wrote, or torch's TORCH_TRACE log of one process")
    parser.add_argument("b", metavar="B.json", help="the same, to compare with A")


def run(args: argparse.Namespace) -> int:
    """0 compared; 2 a trace could not be read (one line)."""
    try:
        for path in (Path(args.a), Path(args.b)):
            wrong = None if looks_like_log(path) else not_a_trace(path)  # binary data: said as such, not "invalid JSON"
            if wrong:
                raise TraceFileError(wrong)
        a, b = _read(Path(args.a)), _read(Path(args.b))
    except TraceFileError as error:
        say("diff", error)
        return 2
    print(render_diff(diff(a, b), style_for(sys.stdout)))
    return 0


def _read(path: Path) -> Trace:
    """A trace, or a TORCH_TRACE log read as one (torchlogs/); what was left out or noticed while reading said as
    warnings, as report says them. Raises TraceFileError (one line) for anything else."""
    if looks_like_log(path):
        try:
            loaded = load_logs(path)
        except LogError as error:
            raise TraceFileError(str(error)) from None
        if len(loaded.logs) > 1:
            raise TraceFileError(f"{path}: {len(loaded.logs)} logs (ranks or processes); diff compares two runs of one "
                                 f"process each: give it one log, or report {path} for the ranks side by side")
        for note in loaded.notes():
            say("diff", f"warning: {note}")
        return loaded.logs[0].trace
    dropped = Dropped()
    trace = load(path, dropped)
    if dropped:
        say("diff", f"warning: {path}: left out what could not be used: {dropped.describe()}")
    return trace
