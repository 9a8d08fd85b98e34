"""A comparison of one script under two releases, as plain data: what the summary, the page and the docs show."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass
from pathlib import Path

from tracers.analysis.spread import Spread, is_noise
from walkthrough.verify import Place

FORMAT = 2  # 2: causes matched over every run, own stage times, each side's build
MOVED_SHARE = 0.10  # a stage whose median time changed by less than this share has not moved, whatever the spread


@dataclass(frozen=True)
class Run:
    """One traced run of the script under one release."""

    exit_code: int  # the script's own (the tracer passes it on)
    trace: str  # the trace file, relative to the comparison's folder
    output: str  # the script's stdout and stderr, kept apart from the other release's, same folder
    seconds: float  # the whole run, process start to end


@dataclass(frozen=True)
class ReleaseSide:
    release: str  # e.g. 2.14.1
    torch_version: str  # what the trace says, e.g. 2.14.1+cu130
    torch_git: str
    python: str  # the interpreter it ran with (a release venv's, or the one running this command)
    runs: tuple[Run, ...]
    build: str = ""  # which build of torch: "CPU" or "CUDA 13.0" (torch.version.cuda), from the side's own torch

    @property
    def exit_codes(self) -> tuple[int, ...]:
        return tuple(run.exit_code for run in self.runs)


@dataclass(frozen=True)
class TimedRow:
    """A stage or a user function: its time under each release over the repeats, and its calls (first run)."""

    key: str  # stage id, or the user's function
    a: Spread | None  # None: it never ran under A
    b: Spread | None
    a_calls: int
    b_calls: int

    @property
    def noise(self) -> bool | None:
        """True when the change is within the run-to-run spread; None when no spread was measured or a side is missing."""
        return is_noise(self.a, self.b)

    @property
    def ratio(self) -> float | None:
        return self.b.median / self.a.median if self.a and self.b and self.a.median else None

    def moved(self, a: str = "A", b: str = "B") -> str:
        """Why this row counts as moved ("" when it has not): ran on one side only, other calls, or time."""
        if self.a is None or self.b is None:
            return f"ran under {b} only" if self.a is None else f"ran under {a} only"
        if self.a_calls != self.b_calls:
            return f"{self.a_calls} calls under {a}, {self.b_calls} under {b}"
        ratio = self.ratio
        if ratio is None or abs(ratio - 1) < MOVED_SHARE or self.noise:
            return ""
        return f"time {ratio:.2f}×" + (", beyond the run-to-run spread" if self.noise is False else
                                       ", one run each")


@dataclass(frozen=True)
class CauseChange:
    """One cause (a finding matched by what it is, not its line) under both releases, over every run of each."""

    change: str  # same, changed, appeared, went away, or varies (found in some runs only: within the spread)
    kind: str
    code: str  # the user's code object, ``counter.py step``
    a_line: str  # where under A (``counter.py:9``); "" where A has no such cause
    b_line: str
    a_what: str  # the finding's own line under A
    b_what: str
    a_reasons: tuple[str, ...]  # torch's reasons under A (a recompile's guard failures)
    b_reasons: tuple[str, ...]
    a_events: tuple[int, ...]  # events in each run under A (0: not found in that run)
    b_events: tuple[int, ...]
    a_cost_s: float | None  # median compile seconds it cost under A, over the runs that had it
    b_cost_s: float | None

    @property
    def moved(self) -> bool:
        """The same cause at another line (a line number is no change)."""
        return bool(self.a_line and self.b_line and self.a_line != self.b_line)


@dataclass(frozen=True)
class GraphCode:
    """The generated code of one compiled graph under each release (None: no such compile there)."""

    compile_id: str
    a_kernels: tuple[str, ...] | None
    b_kernels: tuple[str, ...] | None
    a_fused: int | None  # generated kernels that compute more than one FX node; None: unknown (no codegen seen)
    b_fused: int | None
    a_extern: int  # calls into a library kernel (e.g. a matmul) instead of generated code
    b_extern: int

    @property
    def differs(self) -> bool:
        return (self.a_kernels, self.a_fused, self.a_extern) != (self.b_kernels, self.b_fused, self.b_extern)


@dataclass(frozen=True)
class Entry:
    """One of the walkthrough's what-changed entries between A and B (verify's finding, its diff text left out)."""

    kind: str  # symbol (a hook target or a linked function), excerpt or fact
    name: str
    status: str  # CHANGED, MISSING, MOVED, INHERITED, UNCHECKED
    old: Place | None  # where it is under A
    new: Place | None  # under B
    uses: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class StageChanges:
    """A stage whose time or behaviour moved, why, and what changed in torch's code for it between A and B."""

    stage: str
    why: str
    entries: tuple[Entry, ...]
    unchanged: int  # entries of this stage that are the same (or only moved lines) between A and B


@dataclass(frozen=True)
class Comparison:
    command: str  # what ran: SCRIPT ARGS, or -m MODULE ARGS
    device: str
    cache: str
    repeat: int
    a: ReleaseSide
    b: ReleaseSide
    stages: tuple[TimedRow, ...]  # inclusive: each stage's outermost calls, the stages they call inside, pipeline order
    tracing: TimedRow  # all of Dynamo's tracing of the user's code
    code: tuple[TimedRow, ...]  # compile time by the user's functions, largest change first
    counts: tuple[tuple[str, int, int], ...]  # (what, under A, under B), first runs
    varied: tuple[str, ...]  # counts that were not the same in every repeat of a side
    causes: tuple[CauseChange, ...]  # every cause of either release, changes first
    graphs: tuple[GraphCode, ...]
    changes: tuple[StageChanges, ...]
    compared_entries: int  # how many of the walkthrough's entries were compared between the two trees
    changes_note: str = ""  # why there are no what-changed entries, when there are none to show
    own_stages: tuple[TimedRow, ...] = ()  # exclusive: each stage's own time, the stages it calls left out
    dominant: str = ""  # which stage's own time dominates, said only as far as medians and spreads agree
    build_note: str = ""  # which builds were compared and why (the CPU index unreachable, no GPU here)
    format: int = FORMAT


def to_json(comparison: Comparison) -> str:
    return json.dumps(dataclasses.asdict(comparison), indent=1, ensure_ascii=False) + "\n"


def _load(kind, value):  # noqa: ANN001, ANN202 - a type hint and its JSON value
    """``value`` read back as ``kind`` (dataclasses, tuples, optionals, ints, strs): asdict's inverse."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        return _load(next(arg for arg in typing.get_args(kind) if arg is not type(None)), value)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], item) for item in value)
        return tuple(_load(arg, item) for arg, item in zip(args, value, strict=True))
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return kind(**{field.name: _load(hints[field.name], value[field.name])
                       for field in dataclasses.fields(kind) if field.name in value})
    if kind is float:
        return float(value)
    if kind in (int, str, bool) and not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


class ComparisonFormatError(ValueError):
    """A file that is not a comparison this toolkit wrote: one line."""


def read(path: Path) -> Comparison:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ComparisonFormatError(f"{path}: cannot read ({exc.strerror})") from None
    except ValueError as exc:
        raise ComparisonFormatError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ComparisonFormatError(f"{path}: not a release comparison of format {FORMAT}")
    try:
        return _load(Comparison, data)
    except (KeyError, TypeError, ValueError, StopIteration) as exc:
        raise ComparisonFormatError(f"{path}: damaged comparison ({type(exc).__name__}: {exc})") from None
