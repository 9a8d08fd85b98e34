"""A tool's real output as readable documents: what it printed (beyond a plain run) and the files it wrote."""

from __future__ import annotations

import fnmatch
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .runner import ToolRun

MAX_READ = 8 * 1024 * 1024  # a larger file is read up to here: detectors need its start, not all of it
# glog's prefix on torch's log lines: level, date, time, thread id. It differs from run to run, the rest not.
_GLOG = re.compile(r"^[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+")
# A structured-trace line (TORCH_TRACE's file): glog prefix, logging call site, then one JSON object.
_TRAILING_NUMBER = re.compile(r"_(\d+)$")
_TRACE_LINE = re.compile(r"^[VIWEDC]\d{4} [\d:.]+\s+\d+\s+\S+\] (\{.*\})\s*$")


@dataclass(frozen=True)
class Doc:
    """One readable piece of output: ``source`` is a stream name or a path under the tool's directory
    (``FILE#key.path`` for a multi-line string inside a JSON file)."""

    source: str
    text: str
    format: str = "text"  # text, json, jsonl (one JSON object per line) or html (tags stripped)


@dataclass(frozen=True)
class OutputStats:
    stream_bytes: int  # what the tool's commands printed, plain-run output included
    file_bytes: int
    files: tuple[tuple[str, int], ...]  # every file written: path under the tool's directory, size


def stats(run: ToolRun) -> OutputStats:
    streams = sum(len(step.stdout.encode()) + len(step.stderr.encode()) for step in run.steps)
    files = tuple((path.relative_to(run.out).as_posix(), path.stat().st_size) for path in _files(run.out))
    return OutputStats(streams, sum(size for _, size in files), files)


def documents(run: ToolRun, baseline: ToolRun | None = None) -> list[Doc]:
    """Streams first (lines a plain run prints too are left out: they are not the tool's), then the files the
    tool table says a user looks at first, then the rest, shallow before deep."""
    seen = _stream_lines(baseline) if baseline is not None and baseline is not run else {}
    docs = []
    for name, text in _streams(run):
        known = seen.get(name, set())
        kept = [line for line in text.splitlines() if normalize(line) not in known]
        if any(line.strip() for line in kept):
            docs.append(Doc(name, "\n".join(kept)))
    for path in _files(run.out, run.tool.look_first):
        docs.extend(file_documents(path.relative_to(run.out).as_posix(), path))
    return docs


def normalize(line: str) -> str:
    """A log line without what changes between runs of the same program (glog's time and thread id)."""
    return _GLOG.sub("", line).rstrip()


def _streams(run: ToolRun) -> list[tuple[str, str]]:
    named = []
    for step in run.steps:
        prefix = "" if step.runs_example else f"{step.label} "
        named += [(f"{prefix}stdout", step.stdout), (f"{prefix}stderr", step.stderr)]
    return named


def _stream_lines(run: ToolRun) -> dict[str, set[str]]:
    return {name: {normalize(line) for line in text.splitlines()} for name, text in _streams(run)}


def _files(root: Path, look_first: tuple[str, ...] = ()) -> list[Path]:
    """Files matching the first of ``look_first`` first (fnmatch: ``*`` crosses folders), then the second's,
    ..., then the rest; each group shallow before deep, folder by folder. In a folder whose every file name
    ends in a number (tlparse numbers each record's file in the order torch logged it) files go in that
    order, elsewhere by name, numbers compared as numbers (``fn_2`` before ``fn_12``)."""
    paths = [path for path in root.rglob("*") if path.is_file() and not path.is_symlink()]
    numbered = {}
    for path in paths:
        numbered[path.parent] = numbered.get(path.parent, True) and bool(_TRAILING_NUMBER.search(path.stem))

    def order(path: Path) -> tuple:
        relative = path.relative_to(root)
        group = next((index for index, pattern in enumerate(look_first)
                      if fnmatch.fnmatchcase(relative.as_posix(), pattern)), len(look_first))
        within = (int(_TRAILING_NUMBER.search(path.stem)[1]),) if numbered[path.parent] else ()
        return group, len(relative.parts), _natural(relative.parent.as_posix()), within, _natural(path.name)
    return sorted(paths, key=order)


def _natural(text: str) -> tuple:
    """A sort key that compares runs of digits as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part)


def file_documents(source: str, path: Path) -> list[Doc]:
    with path.open("rb") as stream:
        raw = stream.read(MAX_READ)
    if b"\x00" in raw[:8192]:
        return []  # a binary (a compiled kernel library): no text to show
    text = raw.decode("utf-8", errors="replace")
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        return [Doc(source, html_text(text), "html")]
    if suffix == ".json":
        try:
            value = json.loads(text)
        except ValueError:
            return [Doc(source, text)]
        pretty = json.dumps(value, indent=1, ensure_ascii=False)
        # Its multi-line strings first: a graph reads better as printed than as one escaped JSON line.
        return [*_json_strings(source, value), Doc(source, pretty, "json")]
    return [Doc(source, text, "jsonl" if _is_json_lines(text) else "text")]


def _is_json_lines(text: str) -> bool:
    """True for JSON Lines and for torch's structured-trace log (glog prefix, then a JSON object)."""
    for line in text.splitlines()[:50]:
        match = _TRACE_LINE.match(line)
        candidate = match[1] if match else line.strip()
        if candidate.startswith("{"):
            try:
                json.loads(candidate)
                return True
            except ValueError:
                continue
    return False


def _json_strings(source: str, value: object, where: str = "") -> list[Doc]:
    """Multi-line strings inside JSON (graphs, code, reasons) as documents of their own, readable as printed.
    A list item that is an object with a ``name`` is labelled by it: ``artifacts[3:recompile_reasons]``."""
    if isinstance(value, str):
        return [Doc(f"{source}#{where}", value)] if "\n" in value.strip() or len(value) > 200 else []
    docs: list[Doc] = []
    if isinstance(value, dict):
        for key, item in value.items():
            docs += _json_strings(source, item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            label = f"{index}:{name}" if isinstance(name, str) else str(index)
            docs += _json_strings(source, item, f"{where}[{label}]")
    return docs


_DROP = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
_BREAKS = re.compile(r"<(?:br|/p|/div|/li|/tr|/h\d|/pre|/summary|/table|/title|/header)\b[^>]*>", re.I)
_TAGS = re.compile(r"<[^>]+>")


def html_text(page: str) -> str:
    """What a browser shows of a page, roughly: no scripts or styles, tags dropped, entities decoded."""
    text = _TAGS.sub("", _BREAKS.sub("\n", _DROP.sub("", page)))
    lines = [line.rstrip() for line in html.unescape(text).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
