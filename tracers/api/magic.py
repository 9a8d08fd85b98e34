"""``%%trace`` for Jupyter and IPython: trace a cell and show its trace page below it."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from tracers.capture.options import SessionOptions, add_session_arguments
from tracers.vocabulary.mistyped import mistake_line
from tracers.vocabulary.usage import UsageError

from .context import trace

USAGE = ("%%trace [--cache cold|warm] [--device cpu|cuda] [--no-code] [--deep] [--deep-min-us US] [--lines] "
         "[--lines-lock LOCK] [--inductor-ir] [--name NAME] [--out DIR] [--as VARIABLE] [--quiet]")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # a bad flag is one line in the cell's output, not a SystemExit
        line = mistake_line(self, message)  # with the closest flag or value, as the command line says it
        raise UsageError(f"{line or message}; usage: {USAGE}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="%%trace", add_help=False)
    add_session_arguments(parser)  # the command line's own flags
    parser.add_argument("--name", default="cell")
    parser.add_argument("--out", default=None)
    parser.add_argument("--as", dest="variable", default=None)
    parser.add_argument("--quiet", action="store_true", help="no page below the cell")
    return parser


def trace_cell(shell: Any, line: str, cell: str) -> Any:
    """Run ``cell`` in the notebook's namespace inside ``tracers.trace(...)``; return the result to show it."""
    try:
        options = _parser().parse_args(shlex.split(line))
        block = trace.with_options(SessionOptions.from_namespace(options), name=options.name, out=options.out)
    except (UsageError, ValueError) as error:
        print(f"%%trace: {error}")
        return None
    try:
        result = block.__enter__()  # e.g. --device cuda without a GPU: one line, the cell not run
    except UsageError as error:
        print(f"%%trace: {error}")
        return None
    failure = None
    try:
        ran = shell.run_cell(cell)  # the cell's own output and errors show as they would untraced
        # IPython showed the traceback already; the trace says how the cell ended, as a with block would.
        failure = getattr(ran, "error_in_exec", None)
    finally:
        block.__exit__(type(failure) if failure else None, failure, None)
    if options.variable:
        shell.user_ns[options.variable] = result
    return None if options.quiet else result


def register(shell: Any) -> None:
    def trace_magic(line: str, cell: str) -> Any:
        return trace_cell(shell, line, cell)

    trace_magic.__doc__ = f"Trace what torch.compile does in this cell and show the trace page.\n\n{USAGE}"
    shell.register_magic_function(trace_magic, magic_kind="cell", magic_name="trace")
