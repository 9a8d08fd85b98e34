"""TORCH_TRACE records streamed from a log (plain or gzip), one at a time, damage counted instead of raised."""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracers.tracefile.validation import without_lone_surrogates

from .streams import open_log

# Each record is one glog-style line, ``V1125 14:43:24.891000 8597 torch/_dynamo/utils.py:2350] {json}``,
# followed by its payload, one tab-prefixed line per payload line; ``has_payload`` is the payload's md5.
# (TorchLogsFormatter.format and trace_structured in torch/_logging/_internal.py, v2.13.0:
# https://github.com/pytorch/pytorch/blob/v2.13.0/torch/_logging/_internal.py)
# the end of a line before one that starts no payload (a header, a blank line): a literal first, which the regex
# engine finds at memchr speed (``^[^\t]`` in multiline mode tries every byte, five times slower)
_BEFORE_NOT_PAYLOAD = re.compile(rb"\n(?=[^\t])")
# A run of blank lines (empty, or spaces and carriage returns; a line that starts with a tab is a payload line):
# skipped whole, at C speed, however long (24 MB of newlines in a few ms). One character class repeated, cut before
# the first line that starts with a tab: an alternation of line shapes costs the regex engine 250 ns a line.
_BLANKS = re.compile(rb"[\n\r \t\f\v]+")
TAB = ord("\t")
_HEADER = re.compile(r"^(?:\[rank\d+\]:)?(?P<level>[VIWEC])\d{4} [\d:.]+ (?P<pid>\d+) (?P<where>\S*)\] (?P<json>\{.*)$")

TRUNCATED = "truncated record"  # the log ends inside a record (the process died, or the copy was cut)
CORRUPT = "corrupt line"  # a line that is neither a record nor a payload line, or whose JSON does not parse
DAMAGED = "damaged payload"  # a payload whose md5 differs from the one its record states
UNREADABLE = "unreadable file"  # a file that cannot be opened or decompressed past some point
# Oddities a tolerant reader reads through (tlparse does): counted so the warning line names them, nothing lost.
CRLF = "line with a Windows ending (CRLF)"  # the log was copied through a system that rewrote its line endings
BLANK = "blank line"  # between records or inside a payload (log collectors stutter); never part of a record
NO_FINAL_NEWLINE = "missing final newline"  # the last record is read as it is, when its md5 holds (or it is whole JSON)
# A payload whose empty lines lost their tab (and any spaces) to a copy that trims trailing whitespace: those lines are
# read as empty payload lines; its md5 cannot be checked then, as the spaces are gone, so it is no damage.
TRIMMED = "payload with lines trimmed of trailing whitespace (read; its md5 not checkable)"


@dataclass(frozen=True, slots=True)
class Record:
    metadata: dict[str, Any]
    payload: str | None
    pid: int
    line: int  # where the record starts in its file (1-based), to name it in messages
    damaged: bool = False  # its payload's md5 differs from the stated one (counted already; kept, as tlparse keeps it)
    prefix: str = ""  # the line before its JSON (``V1125 … utils.py:2350] ``): to write the record back (benchmarks)


@dataclass
class Problems:
    """Damage met while reading, by kind: counted, with the first place each kind was seen."""

    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, str] = field(default_factory=dict)

    def note(self, kind: str, where: str, count: int = 1) -> None:
        self.counts[kind] += count
        self.first.setdefault(kind, where)

    def __bool__(self) -> bool:
        return bool(self.counts)

    def describe(self) -> str:
        """``2 corrupt lines (first: a.log:17), 1 truncated record (b.log:5012)``."""
        parts = []
        for kind, count in sorted(self.counts.items()):
            plural = kind if count == 1 else kind.replace("record", "records").replace("line", "lines") \
                .replace("payload", "payloads").replace("file", "files")
            parts.append(f"{count} {plural} ({'first: ' if count > 1 else ''}{self.first[kind]})")
        return ", ".join(parts)


def is_record_line(text: str) -> bool:
    """Whether a line is the start of a TORCH_TRACE record (to tell a log from other files)."""
    return _HEADER.match(text.rstrip("\n")) is not None


def read_records(path: Path, problems: Problems) -> Iterator[Record]:
    """Every record of one log, in order; damage and oddities are counted in ``problems``. As tlparse reads a
    log: blank lines skipped, ``\\r\\n`` taken for ``\\n``, a payload whose md5 differs still read.

    The log is read in blocks of whole lines, so memory stays bounded by the largest record, not the log."""
    name = path.name
    pending: tuple[dict[str, Any], int, int, str] | None = None  # (metadata, pid, first line, prefix) of the open one
    payload: list[bytes] = []  # the open record's payload lines as read (tab and line ending kept): decoded once
    line_no = 0
    in_corrupt_record = False  # after a line that was not a readable record, until the next record starts
    crlf, first_crlf, unterminated = 0, 0, 0
    stopped = False  # a bound ended the read (streams.py): the record it stopped inside is cut, as at a torn end
    # blank lines met inside the open record: part of its payload if a payload line follows, else between records
    held_blanks, held_first, trimmed = 0, 0, 0

    def finish(at_end: bool) -> Record | None:
        metadata, pid, first, prefix = pending  # type: ignore[misc]
        text = _payload_text(payload) if payload else None
        expected = metadata.get("has_payload")
        if expected is not None and isinstance(expected, str) and len(expected) == 32:
            actual = _md5(text)
            if actual != expected and text is not None and "\r" in text:
                # payload lines ending in ``\r``: a CRLF copy (the md5 holds without them), or a payload that
                # really held carriage returns (it holds with them; then the first check passed)
                bare = "\n".join(line.removesuffix("\r") for line in text.split("\n"))
                text, actual = bare, _md5(bare)
            if actual != expected and trimmed and not _ends_in_space(text):
                # its blank lines lost their tab and spaces, and no line kept trailing whitespace: a trimming copy
                problems.note(TRIMMED, f"{name}:{first}")
                return Record(metadata, text, pid, first, prefix=prefix)
            if actual != expected and at_end and _whole_json(text):
                # a last record without its newline whose payload is whole JSON was not cut: edited, so damaged
                at_end = False
            if actual != expected:
                problems.note(TRUNCATED if at_end else DAMAGED, f"{name}:{first}")
                if at_end:
                    return None  # cut inside its payload: what is left of it would only mislead
                # a hand-edited or re-encoded payload: counted, and still read (tlparse reads it too)
                return Record(metadata, text, pid, first, damaged=True, prefix=prefix)
        elif expected is None and text is not None:
            problems.note(CORRUPT, f"{name}:{first + 1}")  # payload lines under a record that has none
            text = None
        return Record(metadata, text, pid, first, prefix=prefix)

    def payload_lines(lines: bytes) -> None:
        """Lines that each start with a tab, most of a log: kept as they are for finish, only counted here."""
        nonlocal line_no, crlf, first_crlf, unterminated, in_corrupt_record, held_blanks, trimmed
        count = lines.count(b"\n")
        ended = lines.endswith(b"\n")
        if pending is not None:
            if held_blanks:  # blank lines between two payload lines of one record: its empty lines, tab trimmed
                payload.append(b"\t\n" * held_blanks)
                trimmed, held_blanks = trimmed + held_blanks, 0
            payload.append(lines)  # a ``\r`` before a newline stays: finish decides by the md5
        elif not in_corrupt_record:  # the payload of a record already counted is not counted again
            problems.note(CORRUPT, f"{name}:{line_no + 1}")
            in_corrupt_record = True
        # Windows line endings (a log copied through another system), each counted; tlparse reads them too
        windows = lines.count(b"\r\n") + (not ended and lines.endswith(b"\r"))
        if windows:
            crlf += windows
            first = lines.find(b"\r\n")
            first_crlf = first_crlf or line_no + 1 + (lines.count(b"\n", 0, first) if first >= 0 else count)
        line_no += count + (not ended)
        if not ended:
            unterminated = line_no

    def blank_lines(lines: bytes) -> None:
        """A run of whole blank lines: counted as one kind of oddity, never part of a record, nor ending one."""
        nonlocal line_no, crlf, first_crlf
        count = lines.count(b"\n")
        hold_blanks(count, line_no + 1)
        windows = lines.count(b"\r\n")
        if windows:
            crlf += windows
            first_crlf = first_crlf or line_no + 1 + lines.count(b"\n", 0, lines.find(b"\r\n"))
        line_no += count

    def hold_blanks(count: int, where: int) -> None:
        """Blank lines: held while a record is open (a payload line after them makes them its own), else counted."""
        nonlocal held_blanks, held_first
        if pending is None:
            problems.note(BLANK, f"{name}:{where}", count)
            return
        held_first = held_first if held_blanks else where
        held_blanks += count

    def release_blanks() -> None:
        """Blank lines held before a line that is no payload: between records after all."""
        nonlocal held_blanks
        if held_blanks:
            problems.note(BLANK, f"{name}:{held_first}", held_blanks)
            held_blanks = 0

    def other_line(raw: bytes) -> Record | None:
        """A line that starts no payload: a record's header, a blank or a corrupt line. The record it ends, if any."""
        nonlocal line_no, crlf, first_crlf, unterminated, in_corrupt_record, pending, payload, trimmed
        line_no += 1
        text = raw.decode("utf-8", "replace")
        ended = text.endswith("\n")
        text = text[:-1] if ended else text
        if not ended:
            unterminated = line_no
        if text.endswith("\r"):
            crlf += 1
            first_crlf = first_crlf or line_no
        text = text.removesuffix("\r")
        if not text.strip():
            # it does not end a record (a blank payload line is a lone tab, unless a copy trimmed it)
            hold_blanks(1, line_no)
            return None
        release_blanks()
        in_corrupt_record = False
        record = None
        if pending is not None:
            record = finish(at_end=False)
            pending, payload, trimmed = None, [], 0
        match = _HEADER.match(text)
        try:
            metadata = loads(match["json"]) if match else None
        except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than Python parses
            metadata = None
        if not isinstance(metadata, dict):
            problems.note(TRUNCATED if not ended else CORRUPT, f"{name}:{line_no}")
            in_corrupt_record = True
            return record
        pid = match["pid"]  # type: ignore[index]
        # a pid of thousands of digits (damage) is past what int() converts: no pid, not a crash
        prefix = text[:match.start("json")]  # type: ignore[union-attr]
        pending = (metadata, int(pid) if len(pid) <= 18 else 0, line_no, prefix)
        return record

    try:
        with open_log(path, problems) as stream:
            for block in stream.blocks():
                at, size = 0, len(block)
                # only the lines that start no payload are visited one by one; runs of payload lines go whole, and
                # so do runs of blank lines
                start: int | None = 0
                while start is not None:
                    if start < size and block[start] == TAB:
                        found = _BEFORE_NOT_PAYLOAD.search(block, start)
                        start = found.end() if found else None
                        continue
                    if start > at:
                        payload_lines(block[at:start])
                    blank = _BLANKS.match(block, start)
                    end = 0
                    if blank:  # up to the end of its last whole line before one that starts with a tab
                        payload_next = block.find(b"\n\t", start, blank.end())
                        end = block.rfind(b"\n", start, payload_next + 1 if payload_next >= 0 else blank.end()) + 1
                    if end > start:
                        blank_lines(block[start:end])
                        at = end
                    elif start < size:
                        at = block.find(b"\n", start) + 1 or size
                        record = other_line(block[start:at])
                        if record is not None:
                            yield record
                    start = at if at < size else None
                if at < size:
                    payload_lines(block[at:])
            stopped = stream.stopped is not None
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        kind = TRUNCATED if isinstance(error, EOFError) else UNREADABLE
        problems.note(kind, f"{name}:{line_no + 1}" if line_no else name)
        pending = None  # the record it stopped inside is counted once, above
    release_blanks()
    if crlf:
        problems.note(CRLF, f"{name}:{first_crlf}", crlf)
    if pending is not None:
        # a last line without its newline: the log was cut there (a payload that then fails its md5 is a torso)
        record = finish(at_end=bool(unterminated) or stopped)
        if record is not None:
            if unterminated and not stopped:
                problems.note(NO_FINAL_NEWLINE, f"{name}:{unterminated}")
            yield record


def _ends_in_space(text: str | None) -> bool:
    """Whether some line of a payload keeps trailing whitespace (then no copy trimmed it)."""
    return any(line != line.rstrip(" \t") for line in (text or "").split("\n"))


def _whole_json(text: str | None) -> bool:
    """Whether a payload is one whole JSON object or array: a payload cut short never is."""
    if not text or text.lstrip()[:1] not in ("{", "["):
        return False
    try:
        loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _payload_text(lines: list[bytes]) -> str:
    """Payload lines as read (a tab, the line, a newline; the log's last maybe without it) as the payload's text:
    each line without its tab and its newline (a ``\\r`` before it stays, for finish to decide), joined by newlines."""
    data = b"".join(lines)
    data = data[1:-1] if data.endswith(b"\n") else data[1:]
    # every "\n\t" is a line's end and the next one's tab: lines hold no "\n" of their own
    return data.replace(b"\n\t", b"\n").decode("utf-8", "replace")


_SCAN = json.JSONDecoder().scan_once  # the C scanner json.loads calls, as json.loads's own decoder is made


# Every header and every timed event of a log is parsed (700,000 in 8 logs of 50 MB): when the text is one JSON
# value from its first character to its last, json.loads's wrapper steps (two whitespace regexes) are left out.
def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same error; its strings valid Unicode (an escaped lone
    surrogate is read as U+FFFD, as an undecodable byte is: no page or terminal can take one)."""
    text = without_lone_surrogates(text)
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:  # leading whitespace, a BOM, no value at all: json.loads says which
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _md5(text: str | None) -> str:
    return hashlib.md5((text or "").encode("utf-8"), usedforsecurity=False).hexdigest()
