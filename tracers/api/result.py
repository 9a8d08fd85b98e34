"""What a traced block recorded: counts, breaks and recompiles with their lines, the summary, the files, inline HTML."""

from __future__ import annotations

import linecache
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tracers.analysis.by_code import ByCode
from tracers.analysis.finding_type import Finding
from tracers.analysis.fix_checks import FixCheck
from tracers.analysis.kernels import KernelMap
from tracers.analysis.report_model import Report, build_report
from tracers.analysis.speed import Speed
from tracers.analysis.trace_facts import GraphBreak as RecordedBreak
from tracers.analysis.trace_facts import TraceFacts
from tracers.report.save import save_report
from tracers.terminal.summary import Style, render_report
from tracers.tracefile.events import DECOMPILED, Trace
from tracers.vocabulary.cells import cell_place

if TYPE_CHECKING:
    from tracers.capture.session import TraceSession


class Count(int):
    """An int (compare it, add it) that also knows what it counted, so a failed budget can say which ones."""

    details: tuple[str, ...]
    what: str  # what one of them is called, e.g. "graph break"
    findings: tuple[str, ...]  # the trace's findings, one line each: what a failed budget should read first

    def __new__(cls, items: tuple[object, ...], what: str, findings: tuple[object, ...] = ()) -> Count:
        count = super().__new__(cls, len(items))
        count.details = tuple(str(item) for item in items)
        count.what = what
        count.findings = tuple(str(finding) for finding in findings)
        return count

    def __repr__(self) -> str:
        return int.__repr__(self)

    __str__ = __repr__

    def explain(self) -> list[str]:
        """One line per counted thing, e.g. each graph break's user line and reason, then the trace's findings."""
        lines = [f"{self.what} {index}: {detail}" for index, detail in enumerate(self.details, 1)]
        if self.findings:
            lines += ["findings (worst first):", *(f"  {index}. {line}" for index, line in enumerate(self.findings, 1))]
        return lines


@dataclass(frozen=True)
class SourceLine:
    """A line of the user's code: where it is and what it says."""

    filename: str
    line: int | None
    text: str = ""

    def __str__(self) -> str:
        cell = cell_place(self.filename, self.line) if self.line else None  # a notebook's line: cell 3, line 2
        where = cell or (f"{Path(self.filename).name}:{self.line}" if self.line else Path(self.filename).name)
        return f"{where} `{self.text}`" if self.text else where


@dataclass(frozen=True)
class GraphBreak:
    """One graph break: which compile, why (torch's own words) and at which line of the user's code."""

    compile_id: str | None
    reason: str
    at: SourceLine | None

    def __str__(self) -> str:
        return f"[{self.compile_id or '?'}] {self.at or 'unknown line'}: {self.reason}"


@dataclass(frozen=True)
class Recompilation:
    """One recompile: which compile, the guards that failed, the frame recompiled and the call that caused it."""

    compile_id: str | None
    reasons: tuple[str, ...]
    frame: str | None  # the function recompiled: ``name (file:line)``
    called_from: SourceLine | None  # the user's line whose call made it recompile

    def __str__(self) -> str:
        where = f" called from {self.called_from}" if self.called_from else ""
        return f"[{self.compile_id or '?'}] {self.frame or '?'}{where}: {'; '.join(self.reasons) or '?'}"


@dataclass(frozen=True)
class TransformedCode:
    """A code object Dynamo rewrote: decompiled Python (None without depyf, or before the block ended) and listing."""

    compile_id: str | None
    name: str
    source: str | None
    listing: str


_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+)")


def _source_line(filename: str | None, line: int | None) -> SourceLine | None:
    if not filename:
        return None
    text = linecache.getline(filename, line).strip() if line else ""
    return SourceLine(filename, line, text)


class TraceResult:
    """The result of ``with tracers.trace() as t:``. Live inside the block (counts so far), complete after it.

    ``graphs``, ``graph_breaks``, ``recompiles`` and ``compiles`` are ints (``Count``) equal to the totals
    ``python -m tracers trace`` prints for the same run; ``breaks`` and ``recompilations`` give each one
    with its reason and user line; ``summary()`` is the terminal summary, ``save(dir)`` writes the trace
    and its page, and in Jupyter the result shows as that page."""

    def __init__(self, session: TraceSession, name: str):
        self._session = session
        self.name = name
        self.started = time.time()  # a run that wrote this name since then keeps its file (tracefile/names.py)
        self._trace: Trace | None = None
        self._facts: TraceFacts | None = None
        self._report: Report | None = None

    def _complete(self) -> None:
        """Called once the session stopped: from now on the result no longer changes."""
        self._trace = self._session.trace
        self._facts = self._session.facts  # analysed once, when the session finished
        self._report = None

    @property
    def finished(self) -> bool:
        """Whether the block has ended (the result no longer changes)."""
        return self._trace is not None

    @property
    def trace(self) -> Trace:
        """The recorded data (spans, artifacts, run metadata), as the trace file holds it."""
        return self._trace if self._trace is not None else self._session.trace

    @property
    def report(self) -> Report:
        """Every analysis of the trace, made once when the block has ended (tracers/analysis/report_model.py);
        inside the block, made afresh from what was recorded so far."""
        if self._trace is None:
            return build_report(self.trace)
        if self._report is None:
            self._report = build_report(self._trace, self._facts)
        return self._report

    @property
    def facts(self) -> TraceFacts:
        """The analysis the summary and the page are made from (tracers.analysis.trace_facts)."""
        return self._facts if self._facts is not None else self.report.facts

    # -- counts ---------------------------------------------------------------------------
    @property
    def graphs(self) -> Count:
        """FX graphs Dynamo handed to a backend (and backward graphs compiled autograd captured)."""
        graphs = tuple(f"[{compile.compile_id}] {compile.frame or '?'}: {compile.graphs} graph(s)"
                       for compile in self.facts.compiles for _ in range(compile.graphs))
        return Count(graphs, "graph", self.findings)

    @property
    def graph_breaks(self) -> Count:
        """Graph breaks, as torch counts them (``breaks`` has each one's reason and line)."""
        return Count(tuple(self._described(brk) for brk in self.facts.counted_breaks), "graph break", self.findings)

    @property
    def recompiles(self) -> Count:
        """Recompiles: frame compiles after a frame's first (``recompilations`` has each one's reasons)."""
        return Count(self.recompilations, "recompile", self.findings)

    @property
    def compiles(self) -> Count:
        """Frame compiles: one per compile id Dynamo handed out, recompiles included."""
        frames = tuple(f"[{compile.compile_id}] {compile.frame or '?'}"
                       + (f": {compile.calls} call{'s' if compile.calls != 1 else ''} served" if compile.calls is not None
                          else "") for compile in self.facts.frame_compiles)
        return Count(frames, "compile", self.findings)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The trace's root causes, worst first: each with ``what``, ``where`` (``user_line``, ``library_line``),
        ``events``, ``cost_s``, ``eager_calls``, the fix (``fix``, torch's ``hint`` and ``torch_link``) and the
        chapter that ``explained`` it; ``str()`` of one is its headline. Empty for a clean run."""
        return self.report.findings

    # -- the things counted ---------------------------------------------------------------
    @property
    def fix_checks(self) -> dict[str, FixCheck]:
        """``trace --check-fixes``' checks of the findings' fixes, by the fix's key (empty where none was made);
        ``report.checks_for(finding)`` pairs each finding's fixes with theirs."""
        return dict(self.report.fix_checks)

    @property
    def breaks(self) -> tuple[GraphBreak, ...]:
        """Each graph break, in the order torch reported them; a break Dynamo could not resume from (the
        whole frame ran eagerly) is here too, but not in ``graph_breaks``, as torch does not count it."""
        return tuple(self._described(graph_break) for graph_break in self.facts.graph_breaks)

    @staticmethod
    def _described(graph_break: RecordedBreak) -> GraphBreak:
        match = _LOCATION.match(graph_break.location)
        at = _source_line(match["file"], int(match["line"])) if match else None
        return GraphBreak(graph_break.compile_id, graph_break.reason, at)

    @property
    def recompilations(self) -> tuple[Recompilation, ...]:
        """Each recompile, with the guard failures torch gave as its reasons."""
        frames = {compile.compile_id: compile.frame for compile in self.facts.compiles}
        callers = self._callers()
        return tuple(Recompilation(recompile.compile_id, recompile.reasons, frames.get(recompile.compile_id),
                                   callers.get(recompile.compile_id))
                     for recompile in self.facts.recompiles)

    def _callers(self) -> dict[str | None, SourceLine]:
        """Per compile, the user's line that called into the frame being compiled (torch's dynamo_start stack)."""
        callers = {}
        for artifact in self.trace.artifacts:
            frame = artifact.metadata.get("user_frame") if artifact.kind == "frame" else None
            if frame:
                found = _source_line(frame.get("filename"), frame.get("line"))
                if found:
                    callers[artifact.compile_id] = found
        return callers

    @property
    def code(self) -> tuple[TransformedCode, ...]:
        """Each code object Dynamo rewrote, as Python (with depyf installed) and as bytecode; complete after the block."""
        return tuple(TransformedCode(artifact.compile_id, artifact.metadata.get("frame", artifact.name),
                                     artifact.payload, artifact.metadata.get("listing", ""))
                     for artifact in self.trace.artifacts if artifact.kind == DECOMPILED)

    # -- compile time by your code --------------------------------------------------------
    @property
    def by_code(self) -> ByCode:
        """Dynamo's bytecode-tracing time split by the user function each (inlined) call traced, per compile:
        ``t.by_code.rows()`` merges them (``code``, ``calls``, ``inclusive_ns``, ``exclusive_ns``)."""
        return self.report.by_code

    @property
    def kernels(self) -> KernelMap:
        """Each kernel Inductor wrote (and each extern call) with its FX nodes, user lines and codegen time;
        ``t.kernels.by_line()`` goes the other way. Empty for a compile whose output came from a cache."""
        return self.report.kernels

    @property
    def speed(self) -> Speed | None:
        """With ``--vs-eager`` or ``--profile`` (``tracers.trace(vs_eager=True, profile=True)``): each compiled
        function's ``calls``, its ``forward``, ``backward`` and ``step`` (eager and compiled per steady call, with
        their rounds' spread), the ``headline`` part the speedup and payback speak for, ``compile_ns``; and per
        profiled function the kernel time by user line, forward and backward apart (``profiles[i].lines``). A traced
        block times the compiled calls only: the eager run re-runs a script (``python -m tracers trace --vs-eager``)."""
        return self.report.speed

    runtime = speed  # the name it had before ``speed``

    # -- renderings -----------------------------------------------------------------------
    def summary(self, color: bool = False) -> str:
        """The terminal summary ``python -m tracers trace`` prints: stage tree, compiles, breaks, recompiles."""
        return render_report(self.report, Style(color))

    def save(self, directory: str | Path = "traces", *, page: bool = True, keep_paths: bool = False,
             site: str | None = None) -> tuple[Path, ...]:
        """Write ``<name>-<device>-<cache>.json`` (Perfetto-compatible) and its HTML page into ``directory``, as
        ``python -m tracers trace`` does (tracers/report/save.py); returns the paths written. A name another run
        holds becomes ``<name>.2-…``; a page that cannot be written is a warning; a trace that cannot be, an
        OSError. Machine paths are scrubbed as the CLI does unless ``keep_paths``."""
        saved = save_report(self.report, Path(directory), self.name, self.started, page=page, site=site,
                            keep_paths=keep_paths)
        for note in saved.notes:
            warnings.warn(note, stacklevel=2)
        if saved.trace is None:
            raise OSError(saved.error)
        return tuple(saved.written)

    def _repr_html_(self) -> str:
        from .inline import inline_html

        return inline_html(self.report, self.name)

    def __repr__(self) -> str:
        state = "" if self.finished else ", running"
        return (f"<TraceResult {self.name!r}: {int(self.compiles)} compiles, {int(self.graphs)} graphs, "
                f"{int(self.graph_breaks)} graph breaks, {int(self.recompiles)} recompiles{state}>")
