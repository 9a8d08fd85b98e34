"""The pages' code colouring: Python and JSON as escaped HTML with token classes, by regular expressions.

The classes are the short token names every Pygments theme styles (``k``, ``s2``, ``c1`` …), so a trace fragment
inside the Sphinx site takes the site's colours; a lone page brings its own (:func:`code_css`). Only tokens that are
coloured are wrapped: names and operators stay plain text, which is what keeps a 1,000-compile page fast. Each span
closes at its line's end, as a page that shows a file line by line needs (executed.py)."""

from __future__ import annotations

import html
import re

_KEYWORDS = ("assert", "async", "await", "break", "continue", "del", "elif", "else", "except", "finally", "for",
             "global", "if", "lambda", "nonlocal", "pass", "raise", "return", "try", "while", "with", "yield",
             "def", "class", "match", "case")


# A string's body is read as runs of plain characters between escapes, and every alternative ends in a match (a
# string left open, as a payload cut at the page's share leaves one, runs to its line's or the text's end): linear in
# the text, with no backtracking.
def _quoted(quote: str) -> str:
    q, c = re.escape(quote), re.escape(quote[0])
    if len(quote) == 3:
        return rf"{q}[^{c}\\]*(?:(?:\\[\s\S]?|{c}(?!{c}{c}))[^{c}\\]*)*(?:{q}|\Z)"
    return rf"{q}[^{c}\\\n]*(?:\\[\s\S]?[^{c}\\\n]*)*(?:{q}|(?=\n)|\Z)"


_DOUBLE = _quoted('"""') + "|" + _quoted('"')
_SINGLE = _quoted("'''") + "|" + _quoted("'")
# Comments and strings first, by their opening character alone (fast to search for); then, in the code between
# them, the words and numbers. One pattern of both would try every alternative at every character: 3x slower.
_PYTHON_TEXT = re.compile(rf"(?P<c1>#[^\n]*)|(?P<s2>{_DOUBLE})|(?P<s1>{_SINGLE})")
_WORD_CLASS = {**dict.fromkeys(_KEYWORDS, "k"), **dict.fromkeys(("True", "False", "None"), "kc"),
               **dict.fromkeys(("import", "from", "as"), "kn"), **dict.fromkeys(("and", "or", "not", "in", "is"), "ow")}
# Three alternatives, each cheap to rule out at a character: a keyword, a number, a decorator line's name.
_PYTHON_CODE = re.compile(
    r"(?P<word>\b(?:" + "|".join(sorted(_WORD_CLASS, key=len, reverse=True)) + r")\b)"
    r"|(?P<number>(?<![\w.])(?:0[xX][\da-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"j?(?![\w.]))"
    r"|(?P<nd>^[ \t]*@[^\W\d][\w.]*)",
    re.MULTILINE)
_NAMED = re.compile(r"[ \t]+[^\W\d]\w*")  # what follows ``def`` or ``class``: the name it gives
_PREFIXES = frozenset("rRbBuUfF")  # a string's prefix letters (at most two, after no other word character)

_JSON = re.compile(
    r'(?P<str>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?)(?P<key>[ \t]*:)?'
    r"|(?P<kc>\b(?:true|false|null)\b)"
    r"|(?P<mf>-?\b\d+(?:\.\d+(?:[eE][+-]?\d+)?|[eE][+-]?\d+))"
    r"|(?P<mi>-?\b\d+\b)")


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _wrapped(token_class: str, text: str) -> str:
    """``text`` in a span of ``token_class``, one span a line (empty lines stay bare)."""
    if "\n" not in text:
        return f'<span class="{token_class}">{_escape(text)}</span>'
    return "\n".join(f'<span class="{token_class}">{_escape(piece)}</span>' if piece else ""
                     for piece in text.split("\n"))


def python_html(code: str) -> str:
    """Python (or a bytecode listing, or generated code with C++ inside its strings) as coloured HTML."""
    out: list[str] = []
    last = 0
    for found in _PYTHON_TEXT.finditer(code):
        start, end = found.span()
        kind = found.lastgroup
        if kind != "c1":
            start = _with_prefix(code, start, last)
        _code(code, last, start, out)
        out.append(_wrapped(kind, code[start:end]))
        last = end
    _code(code, last, len(code), out)
    return "".join(out)


def _with_prefix(code: str, start: int, floor: int) -> int:
    """Where a string opening at ``start`` begins with its prefix (``f"…"``, ``rb'…'``), not before ``floor``."""
    begin = start
    while begin > floor and start - begin < 2 and code[begin - 1] in _PREFIXES:
        begin -= 1
    if begin < start and begin > 0 and (code[begin - 1].isalnum() or code[begin - 1] == "_"):
        return start  # the letters end a name (``buf"`` is no prefix)
    return begin


def _code(code: str, start: int, end: int, out: list[str]) -> None:
    """``code[start:end]``, outside any string or comment: its words and numbers coloured, the rest escaped."""
    last = start
    for found in _PYTHON_CODE.finditer(code, start, end):
        begin, stop = found.span()
        if begin < last:  # inside the name a ``def`` or ``class`` gave
            continue
        out.append(_escape(code[last:begin]))
        text, kind = found.group(), found.lastgroup
        if kind == "word":
            out.append(f'<span class="{_WORD_CLASS[text]}">{text}</span>')
            named = _NAMED.match(code, stop, end) if text in ("def", "class") else None
            if named:
                gap = len(named.group()) - len(named.group().lstrip())
                name_class = "nf" if text == "def" else "nc"
                out.append(f'{named.group()[:gap]}<span class="{name_class}">{named.group()[gap:]}</span>')
                stop = named.end()
        elif kind == "number":
            out.append(f'<span class="{_number_class(text)}">{text}</span>')
        else:
            out.append(f'<span class="nd">{_escape(text)}</span>')
        last = stop
    out.append(_escape(code[last:end]))


def _number_class(number: str) -> str:
    """``mf`` for a float (a point or an exponent, in base ten), else ``mi``."""
    if number[:2].lower() in ("0x", "0o", "0b"):
        return "mi"
    return "mf" if "." in number or "e" in number or "E" in number else "mi"


def json_html(text: str) -> str:
    """JSON (or a JSON-like record) as coloured HTML: keys apart from string values."""
    # Escaped first, then coloured: ``&``, ``<`` and ``>`` become ``&amp;``, ``&lt;`` and ``&gt;``, which none of
    # the tokens' patterns can start in or end beside differently (no quote, backslash, newline or digit, and word
    # characters only between ``&`` and ``;``), so the tokens are the same ones, escaped: one escape of the whole
    # text instead of one per token (a 1,000-compile page colours 6,000 records).
    text = _escape(text)
    out, last = [], 0
    for found in _JSON.finditer(text):
        start, end = found.span()
        out.append(text[last:start])
        kind = found.lastgroup
        if kind == "key":
            out.append(f'<span class="nt">{found.group("str")}</span>{found.group("key")}')
        elif kind == "str":
            out.append(f'<span class="s2">{found.group()}</span>')
        else:
            out.append(f'<span class="{kind}">{found.group()}</span>')
        last = end
    out.append(text[last:])
    return "".join(out)


def text_html(text: str) -> str:
    """Plain text, escaped."""
    return _escape(text)


# The project's own colours for a lone page or a notebook (the site's theme styles the same classes there).
_COLOURS = (("c1", "color: #6a737d; font-style: italic"), ("k", "color: #8f3f71; font-weight: bold"),
            ("kn", "color: #8f3f71; font-weight: bold"), ("kc", "color: #8f3f71"), ("ow", "color: #8f3f71"),
            ("s1", "color: #2b7a3d"), ("s2", "color: #2b7a3d"), ("mi", "color: #1c5fa8"), ("mf", "color: #1c5fa8"),
            ("nf", "color: #1f4f8f; font-weight: bold"), ("nc", "color: #1f4f8f; font-weight: bold"),
            ("nd", "color: #7a5a00"), ("nt", "color: #1f4f8f"))


def code_css(scope: str = ".highlight") -> str:
    """The code's background and the colours of the classes above, each rule under ``scope``."""
    return f"{scope} {{ background: #f6f8fa; }}\n" + "".join(f"{scope} .{name} {{ {style} }}\n" for name, style in _COLOURS)
