"""Where a module's top-level statements start, found from its text without parsing it."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Comments and string literals, longest form first: inside them nothing is code. Exact for the
# lexical grammar torch is written in (f-strings before 3.12 cannot nest the quote that opens them).
_SKIPPED = re.compile(
    r'#[^\n]*'
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'",
    re.DOTALL,
)
_LINE_START = re.compile(r"^\S", re.MULTILINE)
_DEF = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+(\w+)")
_INDENTED_DEF = re.compile(r"^[ \t]+(?:async[ \t]+def|def|class)[ \t]+(\w+)", re.MULTILINE)
_OPENERS, _CLOSERS = "([{", ")]}"


def _blank(match: re.Match) -> str:
    """A comment as nothing, a string as its opening quote: the lines stay, and a line that starts
    inside a string starts with a space, so it never looks like a statement of its own."""
    text = match.group()
    if text[0] == "#":
        return ""
    return text[0] + "\n " * text.count("\n")


def _line_end(code: str, offset: int) -> int:
    end = code.find("\n", offset)
    return len(code) if end < 0 else end


@dataclass(frozen=True)
class Outline:
    """The top-level statements of one file: enough to cut out one definition and parse it alone."""

    lines: list[str]  # the file split at "\n", as the parser numbers lines
    starts: list[int]  # 0-based first line of every top-level statement (each decorator is one)
    heads: list[str]  # the code (strings and comments blanked) of each such first line
    defs: dict[str, list[int]]  # name -> index into starts of each column-0 def/class of it
    conditional: frozenset[str]  # names a def/class binds inside a top-level if/try/with/for/...

    def definition(self, name: str) -> tuple[int, int] | None:
        """0-based lines ``[first, end)`` of the one top-level def/class of ``name``, decorators included.

        None when there is not exactly one, or when the name may also be bound conditionally: then
        only a parse of the whole file says which definition wins."""
        found = self.defs.get(name)
        if found is None or len(found) != 1 or name in self.conditional:
            return None
        index = first = found[0]
        while first > 0 and self.heads[first - 1].startswith("@"):
            first -= 1
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.lines)
        return self.starts[first], end


def outline(text: str) -> Outline | None:
    """The file's top-level statements; None when it holds characters this scan does not model."""
    if "\r" in text or "\f" in text or "\0" in text:
        return None  # other line ends, form feeds in indentation, NULs: leave them to the parser
    code = _SKIPPED.sub(_blank, text)
    line_offsets = [0]
    line_offsets.extend(match.end() for match in re.finditer("\n", code))
    starts: list[int] = []
    start_offsets: list[int] = []
    depth, previous = 0, 0
    for match in _LINE_START.finditer(code):
        offset = match.start()
        for opener, closer in zip(_OPENERS, _CLOSERS):
            depth += code.count(opener, previous, offset) - code.count(closer, previous, offset)
        previous = offset
        # Inside brackets or after a backslash the line continues a statement; it does not start one.
        if depth == 0 and not (offset >= 2 and code[offset - 2] == "\\"):
            starts.append(bisect.bisect_left(line_offsets, offset))
            start_offsets.append(offset)
    heads = [code[offset:_line_end(code, offset)] for offset in start_offsets]
    defs: dict[str, list[int]] = {}
    for index, head in enumerate(heads):
        match = _DEF.match(head)
        if match:
            defs.setdefault(match.group(1), []).append(index)
    conditional = set()
    for match in _INDENTED_DEF.finditer(code):
        enclosing = bisect.bisect_right(start_offsets, match.start()) - 1
        head = heads[enclosing] if enclosing >= 0 else ""
        if not (head.startswith("@") or _DEF.match(head)):
            conditional.add(match.group(1))
    return Outline(text.split("\n"), starts, heads, defs, frozenset(conditional))
