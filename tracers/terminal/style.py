"""How terminal text looks: ANSI styles (off when not a terminal or NO_COLOR is set)."""

from __future__ import annotations

import os


class Style:
    """ANSI styling, switched off when the stream is not a terminal or NO_COLOR is set."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

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


def style_for(stream: object) -> Style:
    isatty = getattr(stream, "isatty", lambda: False)
    return Style(bool(isatty()) and "NO_COLOR" not in os.environ)

