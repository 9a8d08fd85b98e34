"""Any text from an input made printable on a terminal: control characters and escape sequences shown, not obeyed."""

from __future__ import annotations

import re

# What a terminal obeys or that breaks a line's layout, escaped: C0 controls but the newline (ESC starts every
# escape sequence, BEL ends an OSC title, CR overwrites the line), DEL, C1 controls (U+009B is a one-character CSI
# on some terminals), line and paragraph separators, the bidirectional overrides and isolates ("Trojan source",
# CVE-2021-42574), lone surrogates (not encodable: print would raise) and the noncharacters U+FDD0-U+FDEF
# (terminal/style.py marks its own colours with them). Everything else, emoji and other scripts, is kept.
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ufdd0-\ufdef\ud800-\udfff]")
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\n]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, newlines: bool = True) -> str:
    """``text`` with every character a terminal would obey shown as its escape (``\\x1b``, ``\\x07``, ``\\u202e``);
    newlines kept where ``newlines`` (the layout's own), else shown as ``\\x0a`` too. Idempotent on its output."""
    pattern = _UNSAFE if newlines else _UNSAFE_OR_NEWLINE
    return pattern.sub(_shown, text) if pattern.search(text) else text


def printable_value(value: object) -> str:
    """``str(value)`` made printable on one line (a name, an id, a reason, a path)."""
    return printable(value if isinstance(value, str) else str(value), newlines=False)
