"""How terminal text looks: ANSI styles (off when not a terminal or NO_COLOR is set), put in after the text is made
printable, so that no escape sequence from an input ever reaches the terminal."""

from __future__ import annotations

import os
import re
import secrets

from tracers.vocabulary.printable import printable

# A style marks its text with tokens, not escape codes: ``\ufdd0 <nonce> <SGR code> \ufdd1`` (U+FDD0/U+FDD1 are
# noncharacters, which printable() escapes wherever an input holds them; the nonce, a private-use character drawn
# per Style, makes a token an input cannot spell). ``finish`` makes the whole text printable, then turns the tokens
# into the terminal's codes: a token is as long as its code, so widths measured on styled text stay what they were.
_OPEN, _CLOSE = "\ufdd0", "\ufdd1"
_CODES = ("0", "1", "2", "31", "32", "33")


class Style:
    """ANSI styling, switched off when the stream is not a terminal or NO_COLOR is set."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._nonce = chr(0xE000 + secrets.randbelow(0x1900))
        self._token = re.compile(f"{_OPEN}{self._nonce}({'|'.join(_CODES)}){_CLOSE}")

    def _wrap(self, code: str, text: str) -> str:
        if not self.enabled:
            return text
        return f"{_OPEN}{self._nonce}{code}{_CLOSE}{text}{_OPEN}{self._nonce}0{_CLOSE}"

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def finish(self, text: str) -> str:
        """``text`` as the terminal gets it: every character from an input that a terminal would obey shown as its
        escape (``\\x1b``), newlines kept, then this style's own colours as ANSI codes (none when it is off)."""
        if not self.enabled:
            return printable(text)
        pieces = self._token.split(text)  # text, code, text, code, …, text
        return "".join(f"\033[{piece}m" if index % 2 else printable(piece) for index, piece in enumerate(pieces))


def style_for(stream: object) -> Style:
    isatty = getattr(stream, "isatty", lambda: False)
    return Style(bool(isatty()) and "NO_COLOR" not in os.environ)
