"""Excerpt specs and their resolution: a symbol narrowed by text anchors, with emphasis and callouts."""

from __future__ import annotations

import io
import textwrap
import tokenize
from dataclasses import dataclass

from walkthrough.symbols import Resolver, Symbol, digest, split_name

ANNOTATION_SEP = " => "


class ExcerptError(Exception):
    """An excerpt that cannot be built: its symbol or one of its patterns is gone."""


@dataclass(frozen=True)
class ExcerptSpec:
    """What a page asks for; never a line number."""

    target: str  # module:qualname
    start: str = ""  # the excerpt begins at the first line containing this text
    end: str = ""  # ... and ends at the first line from there on containing this text
    emphasize: tuple[str, ...] = ()  # every line containing one of these is highlighted
    annotations: tuple[tuple[str, str], ...] = ()  # (pattern, note): a numbered callout on that line
    caption: str = ""
    trace: str = ""  # a recorded example whose executed lines the excerpt marks: ``mlp`` or ``mlp cpu/cold``

    @property
    def key(self) -> str:
        """A stable identity within a page: the symbol and its anchors."""
        anchors = "".join(f" [{label}={value}]" for label, value in (("start", self.start), ("end", self.end)) if value)
        return f"{self.target}{anchors}"


@dataclass(frozen=True)
class Callout:
    number: int
    line: int  # the file's line number
    pattern: str
    note: str


@dataclass(frozen=True)
class Stale:
    """An emphasis or callout of the page whose pattern no longer matches the release's code."""

    kind: str  # emphasis | callout
    pattern: str
    note: str = ""  # a callout's note, as the page wrote it


@dataclass(frozen=True)
class Excerpt:
    """A resolved excerpt: file lines ``start..end`` of one torch tree, ready to render."""

    spec: ExcerptSpec
    symbol: Symbol
    start: int
    end: int
    lines: tuple[str, ...]  # dedented, one per file line start..end
    emphasized: tuple[int, ...]  # file line numbers
    callouts: tuple[Callout, ...]
    torch_version: str
    git_version: str
    # Only from a lenient build (another release than the page was written for):
    anchors_lost: bool = False  # the start/end patterns no longer match: the whole symbol is shown
    stale: tuple[Stale, ...] = ()  # emphases and callouts left out because their pattern no longer matches

    @property
    def path(self) -> str:
        return self.symbol.path

    @property
    def code(self) -> str:
        return "\n".join(self.lines)

    @property
    def hash(self) -> str:
        return digest(normalize_tokens(self.lines))

    @property
    def raw_hash(self) -> str:
        return digest(self.code)


_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
           tokenize.ENDMARKER}


def normalize_tokens(lines: tuple[str, ...] | list[str]) -> str:
    """The slice's tokens without comments, layout or trailing commas: a reformat hashes the same.

    A slice need not parse (it may stop inside a bracket), so tokens are used, not ast; the part after
    a tokenize error falls back to whitespace-collapsed lines.
    """
    text = "\n".join(lines) + "\n"
    tokens: list[str] = []
    consumed = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            consumed = token.end[0]
            if token.type in _LAYOUT:
                continue
            if token.string in ")]}" and tokens and tokens[-1] == ",":
                tokens.pop()  # a magic trailing comma is layout
            tokens.append(token.string)
        consumed = len(lines)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    rest = normalize_lines(lines[consumed:])
    return " ".join(tokens) + ("\n" + rest if rest else "")


def normalize_lines(lines: tuple[str, ...] | list[str]) -> str:
    """Code lines without layout, blank lines or whole-line comments: a slice need not parse, so no ast here."""
    kept = []
    for line in lines:
        stripped = " ".join(line.split())
        if stripped and not stripped.startswith("#"):
            kept.append(stripped)
    return "\n".join(kept)


def parse_spec(argument: str, options: dict[str, str], body: list[str]) -> ExcerptSpec:
    """The one parser of the directive's text, shared by Sphinx and by the lock's page scanner.

    ``argument`` is the ``module:qualname``; options are ``start``, ``end``, ``emphasize``, ``caption``
    and ``trace``; each body line is ``emphasize: PATTERN`` or ``PATTERN => NOTE``.
    """
    target = argument.strip()
    split_name(target)  # raises ValueError with a usage message
    unknown = set(options) - {"start", "end", "emphasize", "caption", "trace"}
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(sorted(unknown))} for {target}")
    emphasize = [options["emphasize"].strip()] if options.get("emphasize", "").strip() else []
    annotations = []
    for raw in body:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("emphasize:"):
            pattern = line.removeprefix("emphasize:").strip()
            if pattern:
                emphasize.append(pattern)
            continue
        pattern, sep, note = line.partition(ANNOTATION_SEP)
        if not sep or not pattern.strip() or not note.strip():
            raise ValueError(f"excerpt {target}: body line {line!r} is neither 'emphasize: PATTERN' "
                             f"nor 'PATTERN{ANNOTATION_SEP}NOTE'")
        annotations.append((pattern.strip(), note.strip()))
    return ExcerptSpec(target, options.get("start", "").strip(), options.get("end", "").strip(),
                       tuple(emphasize), tuple(annotations), options.get("caption", "").strip(),
                       " ".join(options.get("trace", "").split()))


def _first(lines: list[str], pattern: str, begin: int = 0) -> int | None:
    for index in range(begin, len(lines)):
        if pattern in lines[index]:
            return index
    return None


def build(resolver: Resolver, spec: ExcerptSpec, symbol: Symbol | None = None, *, lenient: bool = False) -> Excerpt:
    """Resolve a spec in one torch tree; raises ExcerptError (or SymbolNotFound) when it no longer fits.

    ``lenient`` (building for another release than the page was written for) never raises ExcerptError:
    lost start/end anchors fall back to the whole symbol, and emphases or callouts whose pattern is gone
    are listed in ``stale`` instead of shown."""
    symbol = symbol or resolver.resolve(spec.target)
    lines = symbol.text.splitlines()
    where = f"{spec.target} in torch {resolver.source.version}"
    first, last = 0, len(lines) - 1
    anchors_lost = False
    if spec.start:
        found = _first(lines, spec.start)
        if found is None and not lenient:
            raise ExcerptError(f"{where}: start pattern {spec.start!r} not found")
        anchors_lost = found is None
        first = found or 0
    if spec.end and not anchors_lost:
        found = _first(lines, spec.end, first)
        if found is None and not lenient:
            raise ExcerptError(f"{where}: end pattern {spec.end!r} not found after the start")
        anchors_lost = found is None
        last = len(lines) - 1 if found is None else found
    if anchors_lost:
        first, last = 0, len(lines) - 1
    window = lines[first:last + 1]
    start = symbol.start + first
    emphasized = []
    stale = []
    for pattern in spec.emphasize:
        hits = [start + i for i, line in enumerate(window) if pattern in line]
        if not hits:
            if not lenient:
                raise ExcerptError(f"{where}: emphasize pattern {pattern!r} not found in the excerpt")
            stale.append(Stale("emphasis", pattern))
        emphasized.extend(hits)
    callouts = []
    for pattern, note in spec.annotations:
        hit = _first(window, pattern)
        if hit is None:
            if not lenient:
                raise ExcerptError(f"{where}: annotation pattern {pattern!r} not found in the excerpt")
            stale.append(Stale("callout", pattern, note))
            continue
        callouts.append(Callout(len(callouts) + 1, start + hit, pattern, note))
    dedented = textwrap.dedent("\n".join(window)).split("\n")
    return Excerpt(spec, symbol, start, start + len(window) - 1, tuple(dedented), tuple(sorted(set(emphasized))),
                   tuple(callouts), resolver.source.version, resolver.source.git_version, anchors_lost, tuple(stale))
