"""``diff A.json B.json``: two traces stage by stage, their kernels and their speed, in the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracers.analysis.diff import diff
from tracers.terminal.diff import render_diff
from tracers.terminal.style import style_for
from tracers.tracefile.chrome import TraceFileError, load

from .inputs import not_a_trace
from .say import say

HELP = "compare two traces stage by stage"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The two traces."""
    parser.description = ("Show which stages and targets ran in one trace and not the other, time per stage side "
                          "by side, and the generated kernels (e.g. CPU vs CUDA, cold vs warm, two torch releases).")
    parser.add_argument("a", metavar="A.json")
    parser.add_argument("b", metavar="B.json")


def run(args: argparse.Namespace) -> int:
    """0 compared; 2 a trace could not be read (one line)."""
    try:
        for path in (Path(args.a), Path(args.b)):
            wrong = not_a_trace(path, logs=False)  # a log or binary data: said as such, not "invalid JSON"
            if wrong:
                raise TraceFileError(wrong)
        a, b = load(Path(args.a)), load(Path(args.b))
    except TraceFileError as error:
        say("diff", error)
        return 2
    print(render_diff(diff(a, b), style_for(sys.stdout)))
    return 0
