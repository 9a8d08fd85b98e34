"""Dynamo's bytecode-tracing time split by the user function each (nested) translator run traced."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Span, Trace

BYTECODE = "bytecode"  # the stage of InstructionTranslatorBase.run: one span per frame or inlined call traced


@dataclass(frozen=True)
class CodeNode:
    """Calls of one function under one caller path, merged (one box of the icicle)."""

    code: str  # ``GPT2Block.forward (modeling_gpt2.py:388)``
    calls: int
    inclusive_ns: int  # tracing time in these calls and the functions Dynamo inlined from them
    exclusive_ns: int  # tracing time in these calls' own bytecode
    children: tuple[CodeNode, ...] = ()


@dataclass(frozen=True)
class CodeRow:
    """One function's share of a compile's tracing time, wherever it was called from."""

    code: str
    calls: int
    inclusive_ns: int  # a recursive call inside another is not counted twice
    exclusive_ns: int


@dataclass(frozen=True)
class CompileCode:
    """One compile's tracing time and how it splits."""

    compile_id: str
    frame: str
    tracing_ns: int  # bytecode tracing, without the graph compiles and other steps that ran inside it
    rows: tuple[CodeRow, ...]  # by inclusive time, longest first
    roots: tuple[CodeNode, ...]  # the frame traced (more than one when Dynamo restarted its analysis)

    @property
    def attributed_ns(self) -> int:
        return sum(row.exclusive_ns for row in self.rows)


@dataclass(frozen=True)
class ByCode:
    compiles: tuple[CompileCode, ...]

    @property
    def tracing_ns(self) -> int:
        return sum(compile.tracing_ns for compile in self.compiles)

    def rows(self) -> tuple[CodeRow, ...]:
        """Every compile's rows merged by function: the whole run's tracing time by function."""
        merged: dict[str, list[int]] = {}
        for compile in self.compiles:
            for row in compile.rows:
                totals = merged.setdefault(row.code, [0, 0, 0])
                totals[0] += row.calls
                totals[1] += row.inclusive_ns
                totals[2] += row.exclusive_ns
        rows = (CodeRow(code, *totals) for code, totals in merged.items())
        return tuple(sorted(rows, key=lambda row: (-row.inclusive_ns, row.code)))


def by_code(trace: Trace) -> ByCode:
    children: dict[int, list[Span]] = defaultdict(list)
    for span in trace.spans:
        if span.parent is not None:
            children[span.parent].append(span)
    by_id = {span.id: span for span in trace.spans}
    roots: dict[str, list[Span]] = defaultdict(list)
    for span in trace.spans:
        parent = by_id.get(span.parent) if span.parent is not None else None
        if span.stage == BYTECODE and (parent is None or parent.stage != BYTECODE):
            roots[span.compile_id or "?"].append(span)

    compiles = []
    for compile_id, spans in roots.items():
        rows: dict[str, list[int]] = {}
        nodes = tuple(_node(span, children, rows, active=set()) for span in spans)
        merged = _merge(nodes)
        compile_rows = tuple(sorted((CodeRow(code, *totals) for code, totals in rows.items()),
                                    key=lambda row: (-row.inclusive_ns, row.code)))
        compiles.append(CompileCode(compile_id, spans[0].frame or "?", sum(node.inclusive_ns for node in merged),
                                    compile_rows, merged))
    return ByCode(tuple(sorted(compiles, key=lambda compile: sort_key(compile.compile_id))))


def _node(span: Span, children: dict[int, list[Span]], rows: dict[str, list[int]], active: set[str]) -> CodeNode:
    """One translator run as a box: its own time is what its direct children (nested runs, graph compiles,
    anything hooked) leave of it; its inclusive time adds the nested runs' and leaves the rest out."""
    code = span.frame or "?"
    outermost = code not in active  # a function Dynamo is already inside (recursion): its time is counted there
    active = active | {code}
    nested = [_node(child, children, rows, active) for child in children.get(span.id, ()) if child.stage == BYTECODE]
    exclusive = max(0, span.duration_ns - sum(child.duration_ns for child in children.get(span.id, ())))
    inclusive = exclusive + sum(node.inclusive_ns for node in nested)
    totals = rows.setdefault(code, [0, 0, 0])
    totals[0] += 1
    totals[1] += inclusive if outermost else 0
    totals[2] += exclusive
    return CodeNode(code, 1, inclusive, exclusive, _merge(tuple(nested)))


def _merge(nodes: tuple[CodeNode, ...]) -> tuple[CodeNode, ...]:
    """Sibling boxes of the same function become one, their children merged the same way, in first-seen order."""
    groups: dict[str, list[CodeNode]] = {}
    for node in nodes:
        groups.setdefault(node.code, []).append(node)
    return tuple(
        CodeNode(code, sum(node.calls for node in group), sum(node.inclusive_ns for node in group),
                 sum(node.exclusive_ns for node in group),
                 _merge(tuple(child for node in group for child in node.children)))
        for code, group in groups.items()
    )
