"""Fixes checked by running them (``trace --check-fixes``): what the script's run with one fix applied did beside the
first run — its counts before → after, its exit status, its output — and the verdict that follows."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from tracers.tracefile.events import Trace
from tracers.tracefile.validation import is_int
from tracers.vocabulary.durations import duration_s

from .finding_type import Finding, Remedy

_WORDS = {"graphs": "graphs", "graph_breaks": "breaks", "recompiles": "recompiles", "eager_calls": "calls ran eager",
          "compile_s": "compile"}
VERDICTS = ("works", "helps", "does nothing", "changed the output", "worse", "not applied", "timed out",
            "not checked")
_BAD = ("worse", "changed the output", "not applied", "timed out")


@dataclass(frozen=True)
class Counts:
    graphs: int
    graph_breaks: int
    recompiles: int
    eager_calls: int
    compile_s: float


# What a run is measured by, before and after: each a count from its trace (compile_s in seconds).
MEASURES = tuple(item.name for item in fields(Counts))


def counts_of(trace: Trace) -> Counts:
    """A run's counts, from its trace."""
    from .findings import compile_seconds
    from .trace_facts import analyze

    facts = analyze(trace)
    return Counts(facts.graph_count, len(facts.graph_breaks), len(facts.recompiles),
                  sum((trace.info.calls_eager or {}).values()), round(compile_seconds(facts), 4))


@dataclass(frozen=True)
class OutputChange:
    """The script's stdout with the fix beside the first run's: lines lost and added, the first that differs."""

    lost: int = 0
    added: int = 0
    first: str = ""  # the first run's line where they part (or the fixed run's, when that one is longer)
    numbers_vary: bool = False  # the numbers were left out of the comparison: they differ between runs anyway

    @property
    def same(self) -> bool:
        return not (self.lost or self.added)


_NUMBER = re.compile(r"[-+]?\d[\d_]*(?:\.\d+)?(?:e[-+]?\d+)?", re.I)


def masked(line: str) -> str:
    """A line with its numbers as ``#``: what is left when a run's numbers vary (random data, times, process ids)."""
    return _NUMBER.sub("#", line)


def output_change(before: list[str], after: list[str], control: list[str] | None = None) -> OutputChange:
    """Lines of ``before`` missing from ``after`` and the other way, counted as multisets; the first line that
    differs in order. Where a run without any fix (``control``) printed other numbers than ``before``, the numbers
    vary from run to run (random data, times), and the lines are compared with their numbers masked."""
    varies = control is not None and control != before
    if varies:
        before, after = [masked(line) for line in before], [masked(line) for line in after]
    remaining: dict[str, int] = {}
    for line in after:
        remaining[line] = remaining.get(line, 0) + 1
    lost = 0
    for line in before:
        if remaining.get(line):
            remaining[line] -= 1
        else:
            lost += 1
    added = sum(remaining.values())
    first = next((old for old, new in zip(before, after) if old != new), None)
    if first is None and len(before) != len(after):
        first = (before if len(before) > len(after) else after)[min(len(before), len(after))]
    return OutputChange(lost, added, first or "", varies)


@dataclass(frozen=True)
class FixCheck:
    """One fix, run: ``finding`` is the finding's kind and line it belongs to (``recompile@decode.py:21``)."""

    fix: dict[str, Any]  # the Remedy's JSON
    key: str  # Remedy.key
    verdict: str  # one of VERDICTS
    finding: str = ""
    exit_code: int | None = None
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)  # OutputChange's fields
    error: str = ""  # the fixed run's error, where it failed
    gone: bool = False  # the finding is not in the fixed run's findings
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> FixCheck | None:
        """A check read back from a trace; None for one of the wrong shape (a trace is input)."""
        if not isinstance(data, dict) or not isinstance(data.get("key"), str) or data.get("verdict") not in VERDICTS:
            return None
        numbers = {name: {key: value for key, value in (data.get(name) or {}).items()
                          if key in MEASURES and isinstance(value, (int, float)) and not isinstance(value, bool)}
                   for name in ("before", "after") if isinstance(data.get(name) or {}, dict)}
        output = data.get("output") if isinstance(data.get("output"), dict) else {}
        shapes = {"lost": is_count, "added": is_count, "first": lambda v: isinstance(v, str),
                  "numbers_vary": lambda v: isinstance(v, bool)}
        output = {key: value for key, value in output.items() if key in shapes and shapes[key](value)}
        exit_code = data.get("exit_code")
        return cls(data.get("fix") if isinstance(data.get("fix"), dict) else {}, data["key"], data["verdict"],
                   str(data.get("finding") or ""), exit_code if isinstance(exit_code, int) else None,
                   numbers.get("before", {}), numbers.get("after", {}),
                   output,
                   str(data.get("error") or ""), data.get("gone") is True, str(data.get("note") or ""))

    @property
    def bad(self) -> bool:
        return self.verdict in _BAD

    @property
    def said(self) -> str:
        """``works: recompiles 4 → 0, compile 588 ms → 120 ms; the output is the same``."""
        changes = []
        for name in MEASURES:
            old, new = self.before.get(name), self.after.get(name)
            if old is None or new is None or old == new:
                continue
            if name == "compile_s":
                changes.append(f"compile {duration_s(old)} → {duration_s(new)}")
            else:
                changes.append(f"{_WORDS[name]} {old:g} → {new:g}")
        parts = [", ".join(changes)] if changes else []
        if self.verdict == "worse":
            before, after = (Counts(**{name: float(values.get(name, 0)) for name in MEASURES})
                             for values in (self.before, self.after))
            # worse with the run ending as the first did: it compiled more versions, markedly longer (verdict())
            # no call brought back is said only where no break went either (a break gone brings code back)
            brought = "" if after.graph_breaks < before.graph_breaks else \
                ", with no call brought back into compiled code"
            more = after.recompiles > before.recompiles or after.graphs > before.graphs
            ended = f"the program failed (exit {self.exit_code})" if self.exit_code else \
                (f"it compiled more, and markedly longer{brought}" if more else
                 "it compiled markedly longer, and nothing it was for improved") \
                if dearer(before, after) and not self.error else f"the program ended otherwise (exit {self.exit_code})"
            parts.insert(0, ended + (f": {self.error}" if self.error else ""))
        if self.output and self.verdict != "worse":  # a failed run's output is its traceback: said above
            change = OutputChange(**self.output)
            aside = " (numbers aside: they differ from run to run)" if change.numbers_vary else ""
            if change.same:
                parts.append(f"the output is the same{aside}")
            else:
                lost = f"{change.lost} line{'s' if change.lost != 1 else ''} lost" if change.lost else ""
                added = f"{change.added} added" if change.added else ""
                first = f" (first: {change.first[:80]!r})" if change.first else ""
                parts.append(f"the output changed{aside}: {', '.join(part for part in (lost, added) if part)}{first}")
        if self.gone and self.verdict in ("works", "helps"):
            parts.append("the finding is gone")
            if any(self.after.get(name, 0) > self.before.get(name, 0) for name in ("graph_breaks", "recompiles")):
                # a hook's guards back on: the hook runs again, and every call that runs it breaks and recompiles
                parts.append("at a price: more breaks or recompiles than before, which the finding's other fixes may "
                             "avoid")
        if self.note:
            parts.append(self.note)
        if _within_noise(self.before.get("compile_s"), self.after.get("compile_s")):
            parts.append(_NOISE)
        return f"{self.verdict}: " + "; ".join(part for part in parts if part) if parts else self.verdict


# A fix that removes the finding but makes compiling this much dearer is no clean win: said as "helps".
DEARER = 1.25


# Each run is timed once, on a machine other work may share: compile times this close can swap from run to run.
_NOISE = "one run each: compile times within a quarter of each other are within run-to-run noise"


def _within_noise(old: Any, new: Any) -> bool:
    """Both compile times known, different, and within DEARER of each other (either way)."""
    if not isinstance(old, (int, float)) or not isinstance(new, (int, float)) or old == new or min(old, new) <= 0:
        return False
    return max(old, new) / min(old, new) < DEARER


def dearer(before: Counts, after: Counts) -> bool:
    """The fixed run spent markedly more time compiling (a quarter more, and at least half a second)."""
    return after.compile_s > before.compile_s * DEARER and after.compile_s - before.compile_s >= 0.5


def is_count(value: Any) -> bool:
    return is_int(value) and value >= 0


def verdict(before: Counts, after: Counts | None, exit_before: int, exit_after: int | None, output: OutputChange,
            gone: bool, applied: bool, changes_output: bool = False) -> str:
    """The fix's verdict: a failed run or a changed output first (never a fix to follow), then whether it helped;
    ``changes_output``: the output changing is no fault (the fix is meant to change what the program does, or the
    new output is the program's without compile)."""
    if exit_after is None:
        return "timed out"
    if exit_after != exit_before:
        return "worse"
    if after is None or not applied:  # no trace of it, or the fix never took (the run did not reach it)
        return "not applied"
    if not output.same and not changes_output:
        return "changed the output"
    # calls back in compiled code or breaks gone count even where more versions are compiled for them (a raised
    # recompile limit); a fix that trades one for another helps where the sum of them falls
    # (a break fewer with a graph more is the break moved on: the line traced a step further, and broke there)
    gained = after.eager_calls < before.eager_calls or after.recompiles < before.recompiles or \
        (after.graph_breaks < before.graph_breaks and after.graphs <= before.graphs)
    lost = after.eager_calls > before.eager_calls or after.graph_breaks > before.graph_breaks
    fewer = gained and (not lost or after.graph_breaks + after.recompiles + after.eager_calls
                        < before.graph_breaks + before.recompiles + before.eager_calls)
    if dearer(before, after) and not changes_output and after.eager_calls >= before.eager_calls and \
            (after.recompiles > before.recompiles or after.graphs > before.graphs):
        # the finding may be gone, but the run compiles more versions and markedly longer, for no call brought back
        # into compiled code: what the fix was for (compile time, graphs) got worse
        return "worse"
    if gone:  # a fix for what the program computes is worth its compile time; one for compile time is not, dearer
        return "helps" if dearer(before, after) and not changes_output else "works"
    if not fewer and dearer(before, after) and not changes_output:
        return "worse"  # markedly longer to compile, and nothing it was for improved (dynamic=True on short sizes)
    return "helps" if fewer else "does nothing"


def finding_label(finding: Finding) -> str:
    """The finding a fix belongs to, as its check names it (and the fixed run is searched for)."""
    line = finding.user_line or finding.library_line
    return f"{finding.kind}@{line.short if line else '?'}"


def fixes_to_check(found: tuple[Finding, ...] | list[Finding]) -> list[tuple[Finding, Remedy]]:
    """Each remedy of the findings once, in the findings' order (the first finding that offers it keeps it)."""
    seen, out = set(), []
    for finding in found:
        for remedy in finding.remedies:
            if remedy.key not in seen:
                seen.add(remedy.key)
                out.append((finding, remedy))
    return out


def checks_of(trace: Trace) -> dict[str, FixCheck]:
    """The checks a trace holds, by their fix's key (a saved trace's page and summary show them; nothing runs)."""
    found = (FixCheck.from_json(item) for item in (trace.info.fix_checks or []))
    return {check.key: check for check in found if check is not None}
