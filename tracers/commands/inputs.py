"""What an input that is not JSON is, told from its first bytes and name: a log of some other kind, or binary data."""

from __future__ import annotations

from pathlib import Path

from tracers.vocabulary.reading import open_input

_HEAD = 4096  # enough to tell text from binary
_LOG_SUFFIXES = (".log", ".log.gz", ".txt")
_TRACE = "expected a trace this tool wrote (TRACE.json)"
_LOG = " or torch's TORCH_TRACE log (dedicated_log_torch_trace_*.log, written under TORCH_TRACE=DIR)"


def not_a_trace(path: Path, logs: bool = True) -> str | None:
    """One line naming what ``path`` is and what was expected, when it cannot be a trace file; None when it may be."""
    try:
        with open_input(path) as stream:  # regular files only: a FIFO or /proc/kmsg must not block here
            head = stream.read(_HEAD)
    except OSError:
        return None  # the loader says why it cannot be read
    if not head or head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"[")):
        return None  # JSON, or what is left of it: the loader says whether it is whole
    expected = _TRACE + (_LOG if logs else "")
    if path.name.endswith(_LOG_SUFFIXES):
        return f"{path}: not a TORCH_TRACE log (no dedicated_log_torch_trace records); {expected}"
    if _binary(head):
        return f"{path}: not a trace file (binary data, not JSON); {expected}"
    return f"{path}: not a trace file (text that is not JSON); {expected}"


def _binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(head) - 3  # a character cut at the end of the head is still text
    return False
