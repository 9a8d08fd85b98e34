"""What every command's parser shares: the name usage lines call the tool by, the help layout, whole counts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# the one-line mistakes live low (vocabulary/mistyped.py) so %%trace says them too; the commands' tests read them here
from tracers.vocabulary.mistyped import (invalid_choice_line, mistake_line, option_strings,  # noqa: F401
                                         unrecognized_line)
from tracers.vocabulary.printable import printable_value

SCRIPT = "torch-compile-trace"  # the console script (pyproject's [project.scripts])


class RawEpilog(argparse.HelpFormatter):
    """Wrapped description and option help, the epilog's example lines as written."""

    def add_text(self, text: str | None) -> None:
        if text and text.startswith("Example:"):
            self._add_item(lambda: text + "\n", [])
        else:
            super().add_text(text)


class Parser(argparse.ArgumentParser):
    """argparse's parser, with one line (and a suggestion for a mistyped option, command or choice) for every
    mistake, exit 2, instead of the whole usage block."""

    def error(self, message: str):  # noqa: ANN201 - argparse's signature; never returns
        line = mistake_line(self, message)
        if line is None:
            line = f"{message} (--help lists the options)"
        self.exit(2, f"{self.prog}: {printable_value(line)}\n")  # the words typed are quoted in it: shown, not obeyed


def positive(text: str) -> int:
    """A count of 1 or more, for argparse (its error names the option and the value)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def positive_seconds(text: str) -> float:
    """A time limit in seconds, finite and above 0, for argparse."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def prog() -> str:
    """The name help and usage lines call this command by: the console script's own, or python -m's."""
    return SCRIPT if Path(sys.argv[0]).name == SCRIPT else "python -m tracers"


def help_line(path: Path) -> str:
    """A command module's ``HELP`` read from its source without importing it: ``--help`` alone loads no command."""
    import ast  # only the top-level help pays for it

    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["HELP"]:
            return ast.literal_eval(node.value)
    raise LookupError(f"{path} has no HELP line")


def top_parser(commands: dict[str, str], module_of: Callable[[str], Any], chosen: str | None,
               help_of: Callable[[str], str] | None = None) -> argparse.ArgumentParser:
    """The whole command line: every command listed by its help line, only ``chosen``'s arguments filled in
    (another command's module, and what it imports, is never loaded to parse this one). With no command chosen
    and ``help_of`` given, the help lines come from it and no command module is imported."""
    name = prog()
    parser = Parser(
        prog=name, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="See what torch.compile does with your program: trace a script, then read the summary,\n"
                    "the HTML page or the trace file; render, merge and compare saved traces.",
        epilog=f"Start with:\n  {name} trace my_script.py\n  {name} trace --help      (the tracer's options)")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        if command == chosen or (chosen is None and help_of is None):
            module = module_of(command)
            module.add_arguments(subparsers.add_parser(command, help=module.HELP))
        elif chosen is None:
            subparsers.add_parser(command, help=help_of(command), add_help=False)
        else:
            subparsers.add_parser(command, add_help=False)
    return parser
