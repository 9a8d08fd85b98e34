"""The tracer's commands, one module each with its own arguments; ``main`` imports only the one asked for.

Each command module has ``HELP`` (its line in the top-level help), ``add_arguments(parser)`` and ``run(args)``
(returns the exit status). Reading a log (``report``) so loads nothing of ``capture/`` or ``measure/``."""

from __future__ import annotations

import gc
import importlib
import sys
from pathlib import Path

from .parsing import help_line, top_parser

# name -> its module; the order of the top-level help
COMMANDS = {"trace": "trace", "record": "record", "report": "report", "merge": "merge", "diff": "diff",
            "measure": "measure"}
# Commands that only read traces and logs run without Python's cyclic collector: what they build (records, spans,
# artifacts, the page's pieces) holds almost no cycles, yet the collector rescans it ever more often as it grows
# (16% of the CPU of report on a 4,000-compile log, for 3.5% more peak memory). Never around a user's script.
_READING = frozenset({"report", "merge", "diff"})


def _module(name: str):  # noqa: ANN202 - a command module
    return importlib.import_module(f"{__name__}.{COMMANDS[name]}")


def _help(name: str) -> str:
    """A command's help line, read from its module's source: the top-level ``--help`` imports none of them
    (importing them all took ~1 s, most of it the reader, the page and measure's plots)."""
    return help_line(Path(__file__).with_name(f"{COMMANDS[name]}.py"))


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C that reaches here (reading logs, writing a page) is one line and the shell's 130."""
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C): stopped before finishing; files already written are complete, none is half "
              "written", file=sys.stderr)
        return 130


def _run(argv: list[str]) -> int:
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    if chosen == "trace":  # ``trace [options] -m MODULE ARGS``: the module and its args are split off first
        return _module("trace").main(argv)
    # a command after top-level options (``--x report``) still has its arguments, for argparse's suggestions
    chosen = chosen or next((word for word in argv if word in COMMANDS), None)
    if chosen not in _READING:
        return _parsed_and_run(argv, chosen)
    was_enabled = gc.isenabled()
    gc.disable()  # from the imports on: they too build what the collector would rescan
    try:
        return _parsed_and_run(argv, chosen)
    finally:
        if was_enabled:
            gc.enable()


def _parsed_and_run(argv: list[str], chosen: str | None) -> int:
    parser = top_parser(COMMANDS, _module, chosen, help_of=_help)
    args = parser.parse_args(argv)
    args.argv = tuple(argv)  # the command line as given, for what records it (measure's file)
    return _module(args.command).run(args)
