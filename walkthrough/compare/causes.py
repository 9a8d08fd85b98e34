"""Findings matched across releases by what they are (kind, the user's code, the source, torch's reason), not by line
number, over every repeated run: each cause said once, as the same, changed, appeared, went away or varying."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tracers.analysis.finding_type import Finding
from tracers.analysis.trace_facts import TraceFacts

from .model import CauseChange

# The dominant stage is compared by its own rule (dominant.py): its line is a share of seconds, not a cause.
NOT_CAUSES = frozenset({"slow-stage"})

_RESUME = re.compile(r"torch_dynamo_resume_in_(\w+?)_at_\d+")
_FRAME = re.compile(r"^(?P<name>[^ (]+) \((?P<file>[^:()]+)(?::\d+)?\)$")
_VOLATILE = [  # what differs between runs and releases without the cause being another one
    (re.compile(r"^\s*\d+/\d+:\s*"), ""),  # a compile id leading a reason
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "0x…"),  # object addresses
    (re.compile(r"(\w+\.py):\d+"), r"\1"),  # file:line references
    (re.compile(r"\bline \d+"), "line …"),
    (re.compile(r"\d+(\.\d+)?"), "#"),  # counts, sizes, seconds, ids
    (re.compile(r"\s+"), " "),
]


def normalized(text: str) -> str:
    """A reason with line numbers, counts, addresses and compile ids taken out: what stays is the cause."""
    text = _RESUME.sub(r"the rest of \1", text)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text.strip()


@dataclass(frozen=True)
class Cause:
    """One finding of one run, named by what it is; ``line`` and ``what`` are shown, never matched on."""

    kind: str
    code: str  # the user's code object: ``counter.py step`` (a resumed frame's function is its own)
    source: str  # the user's source line, stripped
    reason: str  # torch's reason (a graph break's id or words, a recompile's guards), normalized
    line: str  # ``counter.py:9``
    what: str
    reasons: tuple[str, ...]  # torch's own words for it, for the sentence
    events: int
    cost_s: float


def _frame_code(facts: TraceFacts, compile_ids: Sequence[str]) -> str:
    """The code object a finding's compiles are of, as ``file function`` (no line: a moved def is the same code)."""
    frames = {compile_facts.compile_id: compile_facts.frame for compile_facts in facts.compiles}
    for compile_id in compile_ids:
        match = _FRAME.match(frames.get(compile_id) or "")
        if match:
            name = _RESUME.sub(r"\1", match["name"])
            return f"{match['file'].rsplit('/', 1)[-1]} {name}"
    return ""


def _reasons(finding: Finding) -> tuple[str, ...]:
    """torch's own reasons: a recompile's guard failures (one per version), else the finding's line."""
    if finding.kind in ("recompile", "recompile-limit") and finding.parts:
        return tuple(dict.fromkeys(re.sub(r"^\s*\d+/\d+:\s*", "", part) for part in finding.parts))
    return (finding.what,)


def cause_of(finding: Finding, facts: TraceFacts) -> Cause:
    line = finding.user_line or finding.library_line
    code = ""
    if finding.kind in ("recompile", "recompile-limit"):
        code = _frame_code(facts, finding.compile_ids)  # the code that recompiled, not the line that called it
    if not code and line is not None:
        code = f"{line.path.rsplit('/', 1)[-1]} {line.function}".strip()
    reasons = _reasons(finding)
    if finding.kind == "graph-break":
        # "4 graph breaks: Failed to trace builtin operator": the count is not the cause; torch's id is.
        words = re.sub(r"^\d+ graph breaks?: ", "", finding.what)
        reason = f"{finding.graph_break_id or ''} {normalized(words)}".strip()
    else:
        reason = " | ".join(sorted({normalized(text) for text in reasons}))
    return Cause(finding.kind, code, (line.code or "").strip() if line else "", reason,
                 line.short if line else "", finding.what, reasons, finding.events, finding.cost_s)


def recompiled(facts: TraceFacts) -> dict[str, list[str]]:
    """Per code object, the guard that failed for each of its recompiles, in torch's words (its first line, the
    expression): a recompile a finding grouped into another (the code after a break) is still one of that code's."""
    out: dict[str, list[str]] = {}
    for recompile in facts.recompiles:
        code = _frame_code(facts, [recompile.compile_id] if recompile.compile_id else [])
        if code and recompile.reasons:
            first = re.sub(r"^\s*\d+/\d+:\s*", "", recompile.reasons[0].splitlines()[0]).split("  #", 1)[0].strip()
            out.setdefault(code, []).append(first)
    return out


def run_causes(found: list[Finding], facts: TraceFacts) -> list[Cause]:
    return [cause_of(finding, facts) for finding in found if finding.kind not in NOT_CAUSES]


# Matching keys, strictest first: a cause whose line moved matches on the second; one whose reason's words changed
# matches on the third, and only where that kind in that code is one cause under each release (no guessing).
_TIERS = (lambda c: (c.kind, c.code, c.source, c.reason), lambda c: (c.kind, c.code, c.reason),
          lambda c: (c.kind, c.code))


@dataclass
class _Group:
    """One cause of one release over its runs: the run it was first found in, and its cause in each run."""

    first: Cause
    runs: dict[int, Cause]


def _match(left: list, right: list, left_key, right_key) -> list[tuple]:  # noqa: ANN001 - items and their Cause
    """Pairs of left and right items (both lists lose what is paired), strictest tier first; the loosest tier pairs
    only keys that are one-to-one."""
    pairs = []
    for tier in _TIERS:
        loose = tier is _TIERS[-1]
        for item in list(left):
            wanted = tier(left_key(item))
            found = [other for other in right if tier(right_key(other)) == wanted]
            if not found or (loose and (len(found) > 1 or sum(tier(left_key(o)) == wanted for o in left) > 1)):
                continue
            pairs.append((item, found[0]))
            left.remove(item)
            right.remove(found[0])
    return pairs


def _first(group: _Group) -> Cause:
    return group.first


def _itself(cause: Cause) -> Cause:
    return cause


def _side(runs: list[list[Cause]]) -> list[_Group]:
    """A release's causes over its runs: each run's matched to the groups found so far, by the same tiers."""
    groups: list[_Group] = []
    for index, causes in enumerate(runs):
        pending = list(causes)
        for group, cause in _match(list(groups), pending, _first, _itself):
            group.runs[index] = cause
        groups.extend(_Group(cause, {index: cause}) for cause in pending)
    return groups


def _pair(a: list[_Group], b: list[_Group]) -> list[tuple[_Group | None, _Group | None]]:
    left, right = list(a), list(b)
    pairs: list[tuple[_Group | None, _Group | None]] = list(_match(left, right, _first, _first))
    return pairs + [(group, None) for group in left] + [(None, group) for group in right]


def _events(group: _Group | None, runs: int) -> tuple[int, ...]:
    """Events in each run (0 where the cause was not found)."""
    return tuple(group.runs[index].events if group and index in group.runs else 0 for index in range(runs))


def _costs(group: _Group | None) -> tuple[float, ...]:
    return tuple(cause.cost_s for cause in group.runs.values()) if group else ()


def _change(a: _Group | None, b: _Group | None, runs_a: int, runs_b: int) -> str:
    """same, changed, appeared, went away, or varies (found in some runs of a release only: within the spread)."""
    events_a, events_b = _events(a, runs_a), _events(b, runs_b)
    partial = (a is not None and len(a.runs) < runs_a) or (b is not None and len(b.runs) < runs_b)
    if a is None or b is None:
        return "varies" if partial else ("appeared" if a is None else "went away")
    if partial:
        return "varies"
    overlap = min(max(events_a), max(events_b)) >= max(min(events_a), min(events_b))
    counts_differ = not overlap
    words_differ = {c.reason for c in a.runs.values()} != {c.reason for c in b.runs.values()}
    if counts_differ or words_differ:
        return "changed"
    return "varies" if len(set(events_a) | set(events_b)) > 1 else "same"


def _guards(runs: list[dict[str, list[str]]] | None, code: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """A code's recompiles in every run of a release (guards, count per run); None where a run had none."""
    if not runs or not all(run.get(code) for run in runs):
        return None
    guards = tuple(dict.fromkeys(f"torch's failed guard `{guard}`" for run in runs for guard in run[code]))
    return guards, tuple(len(run[code]) for run in runs)


def _recompile_elsewhere(change: CauseChange, a: list[dict[str, list[str]]] | None,
                         b: list[dict[str, list[str]]] | None) -> CauseChange:
    """A recompile found as a cause under one release only, where the other release recompiled the same code too
    (its finding grouped the recompile with a break): one change, with both releases' reasons, not an appearance."""
    if change.kind != "recompile" or change.change not in ("appeared", "went away"):
        return change
    other = _guards(a if change.change == "appeared" else b, change.code)
    if other is None:
        return change
    reasons, events = other
    if change.change == "appeared":
        own = _guards(b, change.code)
        return replace(change, change="changed", a_reasons=reasons, a_events=events,
                       b_reasons=change.b_reasons + (own[0] if own else ()))
    own = _guards(a, change.code)
    return replace(change, change="changed", b_reasons=reasons, b_events=events,
                   a_reasons=change.a_reasons + (own[0] if own else ()))


def compare_causes(a: list[list[Cause]], b: list[list[Cause]], a_recompiled: list[dict[str, list[str]]] | None = None,
                   b_recompiled: list[dict[str, list[str]]] | None = None) -> tuple[CauseChange, ...]:
    """Every cause of either release, matched, with its events per run under each and what changed."""
    out = []
    for group_a, group_b in _pair(_side(a), _side(b)):
        first = (group_a or group_b).first  # type: ignore[union-attr]
        shown_a = group_a.first if group_a else None
        shown_b = group_b.first if group_b else None
        out.append(CauseChange(
            change=_change(group_a, group_b, len(a), len(b)), kind=first.kind, code=first.code,
            a_line=shown_a.line if shown_a else "", b_line=shown_b.line if shown_b else "",
            a_what=shown_a.what if shown_a else "", b_what=shown_b.what if shown_b else "",
            a_reasons=shown_a.reasons if shown_a else (), b_reasons=shown_b.reasons if shown_b else (),
            a_events=_events(group_a, len(a)), b_events=_events(group_b, len(b)),
            a_cost_s=_median(_costs(group_a)), b_cost_s=_median(_costs(group_b))))
        out[-1] = _recompile_elsewhere(out[-1], a_recompiled, b_recompiled)
    order = {"appeared": 0, "went away": 0, "changed": 1, "varies": 2, "same": 3}
    return tuple(sorted(out, key=lambda change: order[change.change]))


def _median(values: tuple[float, ...]) -> float | None:
    return round(statistics.median(values), 6) if values else None
