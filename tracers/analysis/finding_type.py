"""A finding (one root cause, costed, at the user's line), the chapters that explain each kind, and the ledger that
counts every compile's time at most once across all findings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tracers.tracefile import compile_identity
from tracers.vocabulary.durations import duration_s

from .claims import Claim
from .frames import SourceLine
from .one_time import OneTime
from .trace_facts import CompileFacts


@dataclass(frozen=True)
class Explained:
    """Where the walkthrough explains the mechanism: a chapter (docs path) and, where one fits, a section."""

    chapter: str  # e.g. chapters/05-graph-breaks
    title: str
    section: str = ""  # the heading's anchor in that chapter

    @property
    def path(self) -> str:
        return f"{self.chapter}#{self.section}" if self.section else self.chapter


# Where each kind of finding is explained. The sections are MyST heading anchors of the chapters (a test checks them).
BREAKS = Explained("chapters/05-graph-breaks", "Graph breaks", "how-dynamo-splits-a-frame")
RECOMPILES = Explained("chapters/04-guards", "Guards and recompiles", "guard-failure-and-recompilation")
SHAPES = Explained("chapters/06-dynamic-shapes", "Dynamic shapes", "a-size-changes-automatic-dynamic")
LIMIT = Explained("chapters/04-guards", "Guards and recompiles", "the-recompile-limit")
RESTARTS = Explained("chapters/02-frame-evaluation", "Frame evaluation (PEP 523)", "")
CACHES = Explained("chapters/14-caches", "Caches", "when-the-cache-misses")
DISTRIBUTED = Explained("chapters/19-distributed", "Distributed: DDP, FSDP and compile")
SETUP = Explained("chapters/11-cpp-codegen", "C++ code generation on CPU", "which-isa-and-why-the-first-compile-takes-longer")
KERNEL_SELECTION = Explained("chapters/15-cuda-graphs", "CUDA graphs and compile modes",
                             "kernel-selection-happens-while-lowering")


@dataclass(frozen=True)
class Remedy:
    """A fix the tracer can apply by itself in a run of its own (``trace --check-fixes``), the user's code untouched:
    a setting of torch's config, an argument of the user's torch.compile call, or a logging function to ignore."""

    kind: str  # "setting", "compile-argument" (at ``file:line``; ``value`` None with ``drop``: left out) or
    #            "ignore-logging" (``name``: the call's function as the code at ``file`` names it, e.g. logger.info)
    #            or "reorder-logging" (the same, put in reorderable_logging_functions: ``print``)
    name: str  # torch._dynamo.config.skip_nnmodule_hook_guards, dynamic, logger.warning_once
    value: bool | int | str | None = None
    file: str = ""
    line: int = 0
    drop: bool = False
    # The fix is meant to change what the program does (a hook that now runs): its output changing is the fix working.
    changes_output: bool = False

    @property
    def key(self) -> str:
        """The same fix in a trace and in its check: what the check is filed under."""
        return f"{self.kind}:{self.name}={'drop' if self.drop else self.value!r}@{self.file.rsplit('/', 1)[-1]}:{self.line}"

    @property
    def said(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}"
        if self.kind == "compile-argument":
            return f"`{self.name}` left out of torch.compile at {where}" if self.drop else \
                f"torch.compile(..., {self.name}={self.value!r}) at {where}"
        if self.kind == "ignore-logging":
            return f"`{self.name}` (the call at {where}) added to torch._dynamo.config.ignore_logging_functions"
        if self.kind == "reorder-logging":
            return f"`{self.name}` (the call at {where}) added to torch._dynamo.config.reorderable_logging_functions"
        return f"{self.name} = {self.value!r}"

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "value": self.value, "file": self.file, "line": self.line,
                "drop": self.drop, "changes_output": self.changes_output}


@dataclass(frozen=True)
class Finding:
    """One root cause: what happened, where in the user's code, how many events it groups, what it cost, the fix."""

    kind: str  # nothing-compiled, compile-failed, graph-break, frame-skipped, recompile, recompile-limit, thrown-away, …
    what: str  # one line: what happened, in the user's names
    events: int  # the events of its kind it groups (breaks, recompiles, compiles)
    compile_ids: tuple[str, ...]
    cost_s: float  # compile seconds these events caused or threw away; no compile is counted in two findings
    user_line: SourceLine | None = None  # the user's own line
    library_line: SourceLine | None = None  # the library line reached from it, where that is where it happened
    graphs_added: int = 0
    no_graph: tuple[str, ...] = ()  # of its compiles, those that traced the frame and produced no graph
    eager_calls: int | None = None  # calls that ran eager because of it; None: none, or not countable
    eager_note: str | None = None  # why eager calls were not counted
    explanation: str | None = None  # torch's own explanation
    hint: str | None = None  # torch's own hint (a config name it gets wrong corrected, see hint_note)
    hint_note: str | None = None  # what we corrected in torch's hint, or why it cannot be followed as written
    torch_link: str | None = None  # torch's page for this graph break
    graph_break_id: str | None = None  # torch's id of this kind of graph break, e.g. GB0291
    advice: str | None = None  # ours, where we know better for this case or torch gives no hint
    explained: Explained | None = None
    informational: bool = False  # not waste: shown after the problems
    recompiles: int = 0  # recompiles a break's line caused (of the code after it), grouped here, not in ``events``
    parts: tuple[str, ...] = ()  # the events it groups, one line each, in the user's names
    cost_counts: str = ""  # what the cost counts, in a few words
    detail: str = ""  # torch's own text (guards, reasons), for a fold on the page
    claims: tuple[Claim, ...] = ()  # what its text claims of the run and was checked (claims.py): read again by tests
    remedies: tuple[Remedy, ...] = ()  # the fixes the tracer can apply itself, best first (trace --check-fixes)

    @property
    def where(self) -> str | None:
        """``modeling_utils.py:4778 via train.py:7``: the library line reached from the user's."""
        if self.library_line and self.user_line:
            return f"{self.library_line.short} via {self.user_line.short}"
        line = self.user_line or self.library_line
        return line.short if line else None

    @property
    def events_text(self) -> str:
        """``compiles 0/1, 0/2; 2 graphs added``, and why calls that ran eager were not counted, where they were not."""
        parts = []
        if self.compile_ids:
            parts.append(f"compile{'s' if len(self.compile_ids) != 1 else ''} {', '.join(self.compile_ids)}")
        if self.no_graph:
            parts.append(f"{', '.join(self.no_graph)} traced the frame and produced no graph")
        if self.graphs_added:
            parts.append(f"{self.graphs_added} graph{'s' if self.graphs_added != 1 else ''} added")
        if self.eager_note and self.eager_calls is None:
            parts.append(self.eager_note)
        return "; ".join(parts)

    @property
    def key(self) -> tuple[str, str, str | None]:
        """The same finding in another process's trace has the same key (its numbers may differ)."""
        return self.kind, re.sub(r"\d+(\.\d+)?", "#", self.what), self.where

    @property
    def fix(self) -> str | None:
        """Ours where we know better for this case, else torch's own hint."""
        return self.advice or self.hint

    @property
    def cost(self) -> str:
        """``2.51 s of compile (the recompiles' whole compiles), 15 calls ran eager``, or empty."""
        parts = []
        if self.cost_s >= 0.0005:
            parts.append(f"{duration_s(self.cost_s)} of compile" + (f" ({self.cost_counts})" if self.cost_counts else ""))
        if self.eager_calls:
            parts.append(f"{self.eager_calls} call{'s' if self.eager_calls != 1 else ''} ran eager")
        return ", ".join(parts)

    def __str__(self) -> str:
        """One line: what, where, and the cost in seconds (what the cost counts is left to the full renderings)."""
        where = f" at {self.where}" if self.where else ""
        cost = f"{duration_s(self.cost_s)} of compile" if self.cost_s >= 0.0005 else ""
        eager = f"{self.eager_calls} call{'s' if self.eager_calls != 1 else ''} ran eager" if self.eager_calls else ""
        said = ", ".join(part for part in (cost, eager) if part)
        return f"{self.what}{where}" + (f" — {said}" if said else "")


# torch's own words inside a graph break's or a failed compile's text.
HINT = re.compile(r"^\s*Hint:\s*(.+)$", re.M)
EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.M)


def first_match(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    return match.group(1).strip() if match else None


def unique_ids(compile_ids: Iterable[str | None]) -> tuple[str, ...]:
    """Each compile id once, in torch's order."""
    return tuple(sorted({compile_id for compile_id in compile_ids if compile_id is not None},
                        key=compile_identity.sort_key))


class Ledger:
    """Each compile's time goes to one finding at most: whole (the finding is why the compile exists) or the part
    a restart threw away; what is left over was the work asked for. So costs never add up to more than the run's."""

    def __init__(self, compiles: dict[str, CompileFacts], setup: OneTime | None = None):
        self._compiles = compiles
        self._setup = setup or OneTime(())
        self._taken: dict[str, int] = {}  # ns of each compile already counted

    def whole(self, compile_id: str) -> float:
        """What is left of the compile's time, now counted (seconds): never its one-time setup, which no line caused."""
        facts = self._compiles.get(compile_id)
        if facts is None:
            return 0.0
        own_ns = max(facts.time_ns - self._setup.within(compile_id), 0)
        left = max(own_ns - self._taken.get(compile_id, 0), 0)
        self._taken[compile_id] = max(own_ns, self._taken.get(compile_id, 0))
        return left / 1e9

    def restart(self, compile_id: str) -> float:
        """The tracing a restart of the compile threw away, if no finding counted any of the compile yet."""
        facts = self._compiles.get(compile_id)
        if facts is None or compile_id in self._taken:
            return 0.0
        part = min(facts.restart_ns, facts.time_ns)
        self._taken[compile_id] = part
        return part / 1e9

    def counted(self, compile_id: str) -> bool:
        return compile_id in self._taken
