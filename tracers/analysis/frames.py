"""Source lines in torch's records: parsing its user tracebacks, and telling the user's code from libraries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracers.vocabulary.cells import cell_place, is_cell

_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)\s*$')
_LOCATION = re.compile(r"^(.*):(\d+)$")
# Scrubbed traces write these placeholders for machine paths (tracefile/scrub.py); raw paths name the directories.
_LIBRARY_MARKS = ("<site-packages>", "<python>", "<frozen", "<string>", "/site-packages/", "/dist-packages/",
                  "/lib/python3")
_USER_PLACEHOLDERS = ("<tmp>/",)  # tracefile/scrub.py's stand-in for the temp dir, where scripts often are
_PACKAGE = Path(__file__).resolve().parents[1]
# The tracer's own files (it runs the script, so its frames sit at the bottom of every traceback).
_OWN = frozenset(path.relative_to(_PACKAGE.parent).as_posix() for path in _PACKAGE.rglob("*.py"))


@dataclass(frozen=True)
class SourceLine:
    path: str
    line: int
    function: str = ""
    code: str = ""

    @property
    def short(self) -> str:
        """``modeling_utils.py:4778``; a package's ``__init__.py`` keeps its package: ``fakelib/__init__.py:11``; a
        notebook's line is said as the notebook shows it: ``cell 3, line 2``."""
        cell = cell_place(self.path, self.line)
        if cell is not None:
            return cell
        parts = self.path.split("/")
        name = "/".join(parts[-2:]) if parts[-1] == "__init__.py" else parts[-1]
        return f"{name}:{self.line}"

    def __str__(self) -> str:
        return self.short


def is_own(path: str) -> bool:
    return any(path == own or path.endswith("/" + own) for own in _OWN)


def is_library(path: str) -> bool:
    """Not the user's: a package, the standard library, torch, or this tracer."""
    # Python's own pseudo-files (``<frozen …>``, ``<string>``) are no user's; a scrubbed ``<tmp>/…`` path is, and so is
    # a notebook cell's ``<ipython-input-…>``.
    pseudo = path.startswith("<") and not (path.startswith(_USER_PLACEHOLDERS) or is_cell(path))
    return any(mark in path for mark in _LIBRARY_MARKS) or pseudo or is_own(path)


def traceback_lines(text: str) -> list[SourceLine]:
    """The frames of a Python traceback in ``text``, outermost first, each with its code line."""
    lines = text.splitlines()
    frames = []
    for index, line in enumerate(lines):
        match = _FRAME.match(line)
        if match:
            following = lines[index + 1].strip() if index + 1 < len(lines) else ""
            code = "" if _FRAME.match(following) else following
            frames.append(SourceLine(match.group(1), int(match.group(2)), match.group(3), code))
    return frames


def caller_paths(trace: Any) -> frozenset[str]:
    """The whole paths of the frames that led to the compiles (each compile's callers, torch's frame records)."""
    return _callers_of(trace).paths


def is_users_file(path: str, known: set[str]) -> bool:
    """Whether a file torch names by a cut path (a guard's comment keeps the last characters, ``ork/main/train.py``;
    a frame keeps the name, ``train.py``) is the user's: matched against whole paths seen; a file none of them names
    is the user's only if its name is one of the user's files."""
    if is_library(path):
        return False
    tail = path.split("/", 1)[1] if "/" in path else path  # the first part may be cut in the middle of a name
    whole = [name for name in known if name.endswith("/" + tail) or name == tail]
    if whole:
        return not is_library(whole[0])
    name = path.rsplit("/", 1)[-1]
    return any(other.rsplit("/", 1)[-1] == name and not is_library(other) for other in known)


def user_caller(trace: Any, compile_id: str) -> SourceLine | None:
    """The user's line that led to a compile: the innermost of its callers outside libraries (older traces keep only
    the innermost caller outside torch)."""
    record = _callers_of(trace).records.get(compile_id)
    if record is None:
        return None
    callers = [frame for frame in record.get("callers") or [] if isinstance(frame, dict)]
    for frame in reversed(callers or [record.get("user_frame") or {}]):
        path = str(frame.get("filename") or "")
        if path and (not is_library(path) or not callers):
            return SourceLine(path, int(frame.get("line") or 0), str(frame.get("name") or ""), str(frame.get("loc") or ""))
    return None


def resumed_call(trace: Any, compile_id: str) -> tuple[SourceLine, dict[str, str]] | None:
    """For a resume function's compile: the user's line that called the function it continues, and what that call
    passed by parameter (the resume function is called from the function's own frame at its break, which is no
    place for a cause); None where that line is a library's or unknown."""
    records = _callers_of(trace).records
    callers = [frame for frame in (records.get(compile_id) or {}).get("callers") or [] if isinstance(frame, dict)]
    if len(callers) < 2 or is_library(str(callers[-2].get("filename") or "")):
        return None
    outer = callers[-2]
    place = (outer.get("filename"), outer.get("line"))
    passed: dict[str, str] = {}
    for record in records.values():  # the continued function's own compile: its caller is the same line
        first = [frame for frame in record.get("callers") or [] if isinstance(frame, dict)]
        if first and (first[-1].get("filename"), first[-1].get("line")) == place and isinstance(record.get("passed"), dict):
            passed = {str(key): str(value) for key, value in record["passed"].items()}
            break
    return SourceLine(str(outer.get("filename") or ""), int(outer.get("line") or 0), str(outer.get("name") or ""),
                      str(outer.get("loc") or "")), passed


def direct_caller(trace: Any, compile_id: str) -> SourceLine | None:
    """The frame that called the compiled frame (the innermost of its callers), whoever's it is."""
    record = _callers_of(trace).records.get(compile_id) or {}
    callers = [frame for frame in record.get("callers") or [] if isinstance(frame, dict)]
    if not callers:
        return None
    frame = callers[-1]
    return SourceLine(str(frame.get("filename") or ""), int(frame.get("line") or 0), str(frame.get("name") or ""),
                      str(frame.get("loc") or ""))


def all_callers(trace: Any, compile_id: str) -> list[SourceLine]:
    """Every frame that led to the compile, outermost first, each with its line."""
    record = _callers_of(trace).records.get(compile_id) or {}
    return [SourceLine(str(frame.get("filename") or ""), int(frame.get("line") or 0), str(frame.get("name") or ""),
                       str(frame.get("loc") or "")) for frame in record.get("callers") or [] if isinstance(frame, dict)]


def passed_by_user(trace: Any, compile_id: str) -> dict[str, str]:
    """What the user's call passed to the compiled function, by parameter (``{'x': 'images'}``), where the user's own
    line called it (through torch's frames only): a library's call passes the library's names."""
    record = _callers_of(trace).records.get(compile_id) or {}
    callers = [frame for frame in record.get("callers") or [] if isinstance(frame, dict)]
    passed = record.get("passed")
    if not callers or not isinstance(passed, dict) or is_library(str(callers[-1].get("filename") or "")):
        return {}
    return {str(key): str(value) for key, value in passed.items()}


def block_caller(trace: Any, compile_id: str) -> SourceLine | None:
    """The line that called the compiled frame where it is a module's ``forward`` of the same package (a model's loop
    calling each of its layers, compiled one by one: regional compilation), else None. A training loop calling a
    compiled model is no ``forward``."""
    record = _callers_of(trace).records.get(compile_id) or {}
    callers = [frame for frame in record.get("callers") or [] if isinstance(frame, dict)]
    compiled = str(record.get("compiled_file") or "")
    if not callers or not compiled or callers[-1].get("name") != "forward":
        return None
    caller = callers[-1]
    path = str(caller.get("filename") or "")
    if package_of(path) != package_of(compiled):
        return None
    return SourceLine(path, int(caller.get("line") or 0), str(caller.get("name") or ""), str(caller.get("loc") or ""))


def compiled_in_a_loop(trace: Any) -> bool:
    """Whether one line of the script compiled several objects (``for layer in layers: layer.compile()``): torch.compile
    calls the live tracer saw (a log does not say)."""
    sites = [(artifact.metadata.get("filename"), artifact.metadata.get("line")) for artifact in trace.artifacts
             if artifact.kind == "compile-call"]
    return len(sites) > len(set(sites))


_PACKAGE_DIRS = ("<site-packages>/", "site-packages/", "dist-packages/")  # where installed packages lie


def package_of(path: str) -> str:
    """An installed file's top-level package (``transformers``), else the file's folder: code of one model."""
    for mark in _PACKAGE_DIRS:
        if mark in path:
            return path.split(mark, 1)[1].split("/", 1)[0]
    return path.rsplit("/", 1)[0]


def module_of(path: str) -> str | None:
    """``transformers.modeling_utils`` of an installed package's file, as code imports it; None outside them."""
    for mark in _PACKAGE_DIRS:
        if mark in path:
            dotted = path.split(mark, 1)[1].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            return dotted if all(part.isidentifier() for part in dotted.split(".")) else None
    return None


def library_name(path: str, otherwise: str = "the library") -> str:
    """``transformers`` of an installed file; ``otherwise`` where the path names no package."""
    package = package_of(path)
    return package if package and "/" not in package else otherwise


def caller_places(trace: Any, compile_id: str) -> set[tuple[str, str]]:
    """(file name, function name) of each frame that led to the compile."""
    record = _callers_of(trace).records.get(compile_id) or {}
    return {(str(frame.get("filename") or "").rsplit("/", 1)[-1], str(frame.get("name") or ""))
            for frame in record.get("callers") or [] if isinstance(frame, dict)}


@dataclass(frozen=True)
class _Callers:
    """Each compile's frame record (its callers) and every whole path they name: indexed once per trace, where each
    lookup scanning every artifact grew with compiles × artifacts."""

    records: dict[str, dict[str, Any]]
    paths: frozenset[str]


_LAST: list[Any] = [None, -1, None]  # the trace last indexed, its record count then, its index (one trace at a time)


def _callers_of(trace: Any) -> _Callers:
    """The index of ``trace``'s frame records, rebuilt for another trace or when records were added since (a trace
    still recording). One entry: the analyses ask about one trace at a time, and a trace holds no more."""
    if _LAST[0] is trace and _LAST[1] == len(trace.artifacts):
        return _LAST[2]
    records: dict[str, dict[str, Any]] = {}
    for artifact in trace.artifacts:
        if artifact.kind == "frame" and artifact.compile_id is not None:
            records.setdefault(artifact.compile_id, artifact.metadata)
    paths = frozenset(str(frame.get("filename") or "") for record in records.values()
                      for frame in [*(record.get("callers") or []), record.get("user_frame") or {}]
                      if isinstance(frame, dict))
    index = _Callers(records, paths)
    _LAST[:] = [trace, len(trace.artifacts), index]
    return index


def parse_location(location: str) -> SourceLine | None:
    match = _LOCATION.match(location or "")
    return SourceLine(match.group(1), int(match.group(2))) if match else None


def user_and_library(frames: list[SourceLine], location: str) -> tuple[SourceLine | None, SourceLine | None]:
    """The user's line nearest the event, and the library line it happened at when that is not the user's own.

    ``frames`` is the user traceback torch recorded (outermost first); ``location`` where the event happened."""
    happened = parse_location(location)
    if happened is not None:
        known = next((frame for frame in reversed(frames)
                      if frame.path == happened.path and frame.line == happened.line), None)
        happened = known or happened
    user = next((frame for frame in reversed(frames) if not is_library(frame.path)), None)
    if happened is not None and not is_library(happened.path):
        return happened, None
    return user, happened


def short(frame: str) -> str:
    """``GPT2LMHeadModel.forward (modeling_gpt2.py:647) via wrapper (…)`` -> ``GPT2LMHeadModel.forward``."""
    return frame.split(" (", 1)[0].strip() if frame else frame
