"""Where a module's statements (and a top-level class's) start, found from the text alone, without parsing."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

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
_INSIDE = "\0"  # starts each line that begins inside a string; never in a file this scans
_ANY_LINE = re.compile(r"^([ \t]*)[^\s\0]", re.MULTILINE)
_KEYWORD = re.compile(r"(?:async|def|class)\b")
_DEF = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+(\w+)")
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))


def _blank(match: re.Match) -> str:
    """A comment as nothing, a string as its opening quote: the line count stays, and a line that
    starts inside a string starts with a mark, so it never looks like a statement of its own."""
    text = match.group()
    if text[0] == "#":
        return ""
    return text[0] + ("\n" + _INSIDE) * text.count("\n")


def _logical_lines(code: str, pattern: re.Pattern, begin: int, end: int, line: int):
    """(line, offset, match) of each line in ``code[begin:end]`` that matches ``pattern`` at its start and
    begins a logical line: outside brackets and not after a backslash. ``begin`` is a line start."""
    depth, previous = 0, begin
    for match in pattern.finditer(code, begin, end):
        offset = match.start()
        for opener, closer in _PAIRS:
            depth += code.count(opener, previous, offset) - code.count(closer, previous, offset)
        line += code.count("\n", previous, offset)
        previous = offset
        if depth == 0 and not (offset >= 2 and code[offset - 2] == "\\"):
            yield line, offset, match


@dataclass(frozen=True)
class Block:
    """The statements of one block, a module or a top-level class's body, all at one indentation."""

    indent: str
    starts: list[int]  # 0-based first line of each statement (each decorator counts as one)
    offsets: list[int]  # where each starts in the scanned code
    heads: list[str]  # the code of each one's first line, without the indentation
    end: int  # the first line after the block
    defs: dict[str, list[int]]  # name -> index into starts of each def/class statement binding it here
    conditional: frozenset[str]  # names a def/class binds inside another statement (if, try, with, ...)

    def span(self, name: str) -> tuple[int, int] | None:
        """0-based lines ``[first, end)`` from the first def/class of ``name`` (decorators included) to
        the end of the last; None when it has none, or may also be bound conditionally (then only a
        parse of the whole block says which definition wins)."""
        found = self.defs.get(name)
        if not found or name in self.conditional:
            return None
        first = found[0]
        while first > 0 and self.heads[first - 1].startswith("@"):
            first -= 1
        after = found[-1] + 1
        return self.starts[first], self.starts[after] if after < len(self.starts) else self.end


def _block(code: str, begin: int, end: int, line: int, end_line: int, indent: str) -> Block | None:
    """The block of statements at ``indent`` in ``code[begin:end]``; None when some def/class in it
    does not name itself on its first line (the scan would not know what it binds)."""
    pattern = re.compile(rf"^{indent}[^\s\0]", re.MULTILINE)
    starts, offsets, heads = [], [], []
    for start, offset, _ in _logical_lines(code, pattern, begin, end, line):
        starts.append(start)
        offsets.append(offset)
        line_end = code.find("\n", offset, end)
        heads.append(code[offset + len(indent):end if line_end < 0 else line_end])
    defs: dict[str, list[int]] = {}
    for index, head in enumerate(heads):
        if _KEYWORD.match(head):
            named = _DEF.match(head)
            if named is None:
                return None
            defs.setdefault(named.group(1), []).append(index)
    conditional = set()
    nested = re.compile(rf"^{indent}[ \t]+((?:async[ \t]+)?(?:def|class)\b)", re.MULTILINE)
    for match in nested.finditer(code, begin, end):
        named = _DEF.match(code, match.start(1))
        if named is None:
            return None
        enclosing = bisect.bisect_right(offsets, match.start()) - 1
        head = heads[enclosing] if enclosing >= 0 else ""
        if not (head.startswith("@") or _DEF.match(head)):
            conditional.add(named.group(1))
    return Block(indent, starts, offsets, heads, end_line, defs, frozenset(conditional))


@dataclass
class Scan:
    """One file's text, its code with comments and strings blanked, and the blocks found so far."""

    lines: list[str]  # the file split at "\n", as the parser numbers lines
    code: str
    module: Block
    _bodies: dict[int, Block | None] = field(default_factory=dict, repr=False)

    def class_body(self, index: int) -> Block | None:
        """The body of the module's statement ``index`` when it is a class laid out plainly (spaces,
        one statement a line); None otherwise."""
        if index not in self._bodies:
            self._bodies[index] = self._class_body(index)
        return self._bodies[index]

    def _class_body(self, index: int) -> Block | None:
        module = self.module
        if not module.heads[index].startswith("class"):
            return None
        begin = module.offsets[index]
        after = index + 1
        end = module.offsets[after] if after < len(module.offsets) else len(self.code)
        end_line = module.starts[after] if after < len(module.starts) else module.end
        if "\t" in self.code[begin:end]:
            return None  # tabs make equal indentation a matter of columns, not of text
        for position, (_, _, match) in enumerate(_logical_lines(self.code, _ANY_LINE, begin, end,
                                                                module.starts[index])):
            if position == 1:  # the first statement after the class's header
                indent = match.group(1)
                return _block(self.code, begin, end, module.starts[index], end_line, indent) if indent else None
        return None  # the body is on the header's line


def scan(text: str) -> Scan | None:
    """The file's top-level statements; None when it holds what this scan does not model."""
    if "\r" in text or "\f" in text or _INSIDE in text:
        return None  # other line ends, form feeds in indentation, NULs: leave them to the parser
    code = _SKIPPED.sub(_blank, text)
    lines = text.split("\n")
    module = _block(code, 0, len(code), 0, len(lines), "")
    return None if module is None else Scan(lines, code, module)
