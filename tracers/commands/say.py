"""A command's one line on stderr, with what came from an input or the command line shown, not obeyed."""

from __future__ import annotations

import sys

from tracers.vocabulary.printable import printable_value


def say(command: str, text: object) -> None:
    """``command: text`` on one line: a file name, a reason or an error read from an input can hold escape sequences
    and newlines (vocabulary/printable.py shows them escaped, as the page escapes HTML)."""
    print(f"{command}: {printable_value(text)}", file=sys.stderr)
