"""Detectors: decide from a tool's real output which facts about a compile it shows, with the evidence.

Every tool here prints torch's own formats (its log records, its structured trace, its graph printer), so one
set of signatures, each a torch wording or an artifact name, serves all tools; none is keyed to a tool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .outputs import Doc

EXCERPT_LINES = 18  # an excerpt shows at least this many lines from where the match starts
MAX_EXCERPT_LINES = 40  # and at most this many, however long the match
LINE_WIDTH = 180


@dataclass(frozen=True)
class Signature:
    """A way a fact shows up in output: ``pattern`` in a document's text, optionally only in documents whose
    source matches ``source`` or whose format is one of ``formats``. Group 1, if any, is the detail."""

    pattern: re.Pattern[str]
    source: re.Pattern[str] | None = None
    formats: tuple[str, ...] = ()

    def finditer(self, doc: Doc):  # noqa: ANN201 - an iterator of re.Match
        if self.formats and doc.format not in self.formats:
            return iter(())
        if self.source is not None and not self.source.search(doc.source):
            return iter(())
        return self.pattern.finditer(doc.text)


@dataclass(frozen=True)
class Feature:
    id: str
    title: str
    signatures: tuple[Signature, ...]
    detail: str = ""  # "lines": the user lines found; "count": how many distinct values


@dataclass(frozen=True)
class Evidence:
    """Where a feature was first found in a tool's output, an excerpt from there, and a summary of all finds."""

    feature: str
    source: str
    line: int  # 1-based, in the document
    excerpt: str
    detail: str = ""


def _sig(pattern: str, source: str | None = None, formats: tuple[str, ...] = ()) -> Signature:
    return Signature(re.compile(pattern), re.compile(source) if source else None, formats)


_ANY = r"\A"  # the document itself is the evidence (its format or its name says it all)
_INSTRUCTION = r"\b(?:RESUME|NOP|LOAD_[A-Z_]+|STORE_[A-Z_]+|CALL(?:_FUNCTION)?|RETURN_VALUE|PUSH_NULL)\b"
_COMPILE_ID_REASON = r"(\d+/\d+: [^\n\"]+)"  # how torch words a failed guard: "0/0: tensor 'x' size mismatch ..."


def features(example: str) -> tuple[Feature, ...]:
    """The facts looked for, in table order. Breaks count only with a line of ``example`` (the user's code)."""
    stem = re.escape(Path(example).stem)
    return (
        Feature("break_reason", "Graph-break reason, at the user's line", (
            _sig(rf"Graph break in user code at [^\n]*?{stem}\.py:(\d+)"),  # graph_breaks log, structured trace
            _sig(rf"Graph break: from user code at:[^\n]*\n[^\n]*?File \"[^\"\n]*?{stem}\.py\", line (\d+)"),
            _sig(rf"Break Reason \d+:(?:\n[^\n]*){{0,40}}?\n[^\n]*<FrameSummary file [^\n]*?{stem}\.py, "
                 rf"line (\d+)"),  # explain's report
            _sig(rf"(?m)^[ \t]*break[ \t]+\[[\d/_]+\][ \t]+[^\n]*?{stem}\.py:(\d+)"),  # this toolkit's summary
        ), detail="lines"),
        Feature("recompile_reason", "Recompile reason: the guard that failed", (
            _sig(rf"triggered by the following guard failure\(s\):[^\n]*\n[^\n]*?- {_COMPILE_ID_REASON}"),
            _sig(rf"recompile_reasons[^\n]*\n\s*\[?\s*\"?{_COMPILE_ID_REASON}"),  # structured-trace log
            _sig(rf"(?m)^[ \t]*\[?[ \t]*\"?{_COMPILE_ID_REASON}", source=r"recompile_reasons"),  # the record alone
            _sig(rf"(?m)^[ \t]*recompile[ \t]+\[[\d/_]+\][ \t]+{_COMPILE_ID_REASON}"),  # this toolkit's summary
        ), detail="count"),
        Feature("guards", "Guards of each compiled frame", (
            _sig(r"TENSOR_MATCH|check_tensor\(L\["),
        )),
        Feature("dynamo_graph", "Dynamo's FX graph (torch-level calls)", (
            # Dynamo names inputs by their source (L_x_), on the def's line or the next few (one per line).
            _sig(r"def forward\(\s*self,(?:[^\n]*\n){0,8}?[^\n]*?\bL_[A-Za-z0-9_]+?_\s*[:,)]"),
        )),
        Feature("aot_graph", "AOTAutograd graph (ATen ops; forward and backward when training)", (
            _sig(r"def forward\(\s*self,\s*(?:arg\d+_\d+|primals_\d+|tangents_\d+)\b"),  # AOTAutograd numbers them
        )),
        Feature("inductor_ir", "Inductor IR (scheduler nodes, loop bodies)", (
            _sig(r"SchedulerNode\(|class op\d+_loop_body\b|\bops\.load\("),
        )),
        Feature("kernel_code", "Generated kernel code (C++ or Triton)", (
            _sig(r"async_compile\.(?:cpp_pybinding|cpp|triton)\(|@triton\.jit|extern \"C\""),
        )),
        Feature("compile_times", "Compile time per stage", (
            _sig(r"entire_frame_compile_time_s|inductor_compile_time_s|Compile Time\(seconds\)|Time per stage"
                 r"|TorchDynamo compilation metrics"),
        )),
        Feature("cache", "Cache hits and misses", (
            _sig(r"\b(?:fx_graph|aotautograd)(?:_bundled)?_cache_(?:hit|miss|bypass)\b"
                 r"|\bCache (?:fx_graph|aotautograd) \d+ (?:hit|miss)"),
            _sig(_ANY, source=r"(?:fx_graph|aotautograd)_cache_(?:hit|miss|bypass)"),  # tlparse names files so
        )),
        Feature("source_view", "Transformed bytecode as Python source", (
            # Decompiled: the compiled graph called from Python code, best with the def that holds the call.
            _sig(r"def \w+\([^\n]*\):\n(?:[^\n]*\n){0,12}?[^\n]*=\s*__compiled_fn_\w+\("),
            _sig(r"=\s*__compiled_fn_\w+\("),
        )),
        Feature("bytecode", "Transformed bytecode (disassembly)", (
            # A bytecode record's name, then an instruction on the next line: the disassembly itself.
            _sig(rf"(?:MODIFIED|ORIGINAL)[ _]BYTECODE[^\n]*\n[^\n]*?{_INSTRUCTION}"),
            _sig(_INSTRUCTION, source=r"(?:MODIFIED|ORIGINAL)_BYTECODE"),  # a record on its own (tlparse)
        )),
        Feature("html_report", "An HTML report to browse", (_sig(_ANY, formats=("html",)),)),
        Feature("timeline", "A timeline for Perfetto (Chrome trace events)", (
            _sig(r"\"traceEvents\"\s*:|\"ph\"\s*:\s*\"[BEXbei]\"", formats=("json",)),
        )),
        Feature("machine_readable", "Machine-readable records (JSON)", (
            _sig(_ANY, formats=("json", "jsonl")),
        )),
    )


def detect(docs: list[Doc], feature: Feature) -> Evidence | None:
    """The first place the feature shows in ``docs`` (in their order), or None; the detail sums up every find."""
    first: tuple[Doc, re.Match[str]] | None = None
    values: list[str] = []
    for doc in docs:
        for signature in feature.signatures:
            for match in signature.finditer(doc):
                if first is None:
                    first = (doc, match)
                if not feature.detail:
                    break
                if match.lastindex:
                    values.append(match[1].strip())
            if first is not None and not feature.detail:
                break
        if first is not None and not feature.detail:
            break
    if first is None:
        return None
    doc, match = first
    line, excerpt = excerpt_at(doc.text, match.start(), match.end())
    return Evidence(feature.id, doc.source, line, excerpt, _summary(feature.detail, values))


def detect_all(docs: list[Doc], example: str) -> list[Evidence]:
    return [evidence for feature in features(example) if (evidence := detect(docs, feature))]


def excerpt_at(text: str, start: int, end: int, lines: int = EXCERPT_LINES) -> tuple[int, str]:
    """The lines from the match's first line on (all of the match, at least ``lines``, long lines cut). When
    the match starts far into a long line (a structured-trace record is one long JSON line), that line is
    cut around the match instead of after its start, so the excerpt still shows what was found."""
    first = text.count("\n", 0, start)
    last = min(max(text.count("\n", 0, end), first + lines - 1), first + MAX_EXCERPT_LINES - 1)
    chosen = text.splitlines()[first:last + 1]
    while chosen and not chosen[-1].strip():
        chosen.pop()
    column = start - (text.rfind("\n", 0, start) + 1)
    cut = [_cut(line, column if index == 0 else 0) for index, line in enumerate(chosen)]
    return first + 1, "\n".join(cut)


def _cut(line: str, column: int) -> str:
    if len(line) <= LINE_WIDTH:
        return line
    if column < LINE_WIDTH // 2:
        return line[:LINE_WIDTH - 1] + "…"
    begin = column - LINE_WIDTH // 4
    rest = line[begin:]
    return "…" + (rest if len(rest) <= LINE_WIDTH - 1 else rest[:LINE_WIDTH - 2] + "…")


def _summary(kind: str, values: list[str]) -> str:
    if kind == "lines":
        numbers = sorted({int(value) for value in values})
        if not numbers:
            return ""
        return f"line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
    if kind == "count":
        count = len(set(values))
        return f"{count} distinct" if count else ""
    return ""
