"""Where ranks part ways: each compile's signature per rank (inputs, guards, graphs, collectives, recompile
reasons) and what torch logs for comparing ranks, compared in compile order, the first difference first, in words."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from tracers.analysis.frames import user_caller
from tracers.analysis.recompiles import named_failure
from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Artifact, Trace

from . import log_comparison
from .collectives import Collective, collectives_in, parting, steps_that_run
from .difference import Difference, Divergence, group_ranks
from .wording import (by_ranks, collective_words, guard_words, ids_text, input_words, is_structure, parting_words,
                      ranks_text, said_guard)

__all__ = ["Difference", "Divergence", "compare", "signatures", "user_line"]

# Values that differ between processes without meaning anything: object ids and addresses in guards,
# a rank's own GPU index.
_VOLATILE = (
    (re.compile(r"\b0x[0-9a-f]+\b"), "0x…"),
    (re.compile(r"\b\d{7,}\b"), "<id>"),
    (re.compile(r"\bcuda:\d+\b"), "cuda"),
    (re.compile(r"\bdevice=\d+\b"), "device=…"),
)
_GUARD_COMMENT = re.compile(r"\s+#.*$")  # where torch added the guard: the same code, other line numbers
_TIMING = re.compile(r"\s*Guard latency\b")
_PLACEHOLDER = re.compile(r'(\w+): "([^"]+)"')


def _steady(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


# Cached: every rank, and every recompile of a frame, logs mostly the same guard lines, and their regexes were
# a third of comparing 8 large rank logs.
@functools.lru_cache(maxsize=1 << 16)
def _guard(line: str) -> str:
    """One guard line as compared across ranks: no comment, no volatile values."""
    return _steady(_GUARD_COMMENT.sub("", line)).strip()


@dataclass(frozen=True)
class CompileSignature:
    """What one rank did for one compile id: what must match across ranks for them to stay in step."""

    compile_id: str
    line: str | None  # the user's source line that triggered the compile
    recompile_reasons: tuple[str, ...]
    inputs: tuple[str, ...]  # the Dynamo graph's inputs: name and tensor metadata (dtype, shape, stride, device)
    guards: frozenset[str]
    graphs: int
    graph_breaks: tuple[str, ...]
    collectives: tuple[Collective, ...]
    cache: tuple[str, ...]
    frame: str = ""  # the compiled frame's name: ranks may compile other frames under one compile id


# Each aspect: its name, how to read it off a signature, what a difference means.
FRAME = "compiled frame"
FRAME_WHY = ("the ranks compiled other functions under this compile id: they ran other code before it, and what "
             "each compiled here (inputs, guards, collectives) is not compared")
ASPECTS: tuple[tuple[str, Callable[[CompileSignature], object], str], ...] = (
    ("recompile reasons", lambda s: s.recompile_reasons,
     "the ranks recompiled for different reasons: their inputs or state differ here"),
    ("input tensor metadata", lambda s: s.inputs,
     "the graphs were traced for inputs of other shapes, strides, dtypes or devices"),
    ("guards", lambda s: s.guards,
     "different guards: the same call can reuse the compiled code on one rank and recompile on another"),
    ("graph count", lambda s: s.graphs,
     "a different number of graphs: the ranks run different code between their collectives"),
    ("graph breaks", lambda s: s.graph_breaks,
     "the ranks broke the graph at different places"),
    ("collectives", lambda s: s.collectives,
     "different collectives inside the compiled graphs (kind, order or size)"),  # said more closely by parting_words
)
# Cache outcomes are compared over the whole run (log_comparison.cache_patterns): ranks grouped by their pattern.
PRESENCE = "compiled on some ranks only"
PRESENCE_WHY = ("only some ranks compiled this: the others reused earlier code (their guards held) or never made "
                "this call; at their next collective, if there is one, they wait while these ranks compile")


def user_line(trace: Trace, compile_id: str) -> str | None:
    """``file:line  code`` of the user's call that started a compile (torch's dynamo_start record): the innermost
    caller outside libraries and the standard library, as the findings choose it (analysis/frames.py). A function
    run by ``multiprocessing`` is called from its ``process.py``: no line of the user's, so None (the frame is said)."""
    line = user_caller(trace, compile_id)
    if line is None:
        return None
    return f"{line.short}  {line.code}" if line.code else line.short


def _inputs(artifacts: list[Artifact]) -> tuple[str, ...]:
    graph = next((a.payload for a in artifacts if a.name == "dynamo_output_graph" and a.payload), "")
    signature = next((line for line in graph.splitlines() if "def forward(" in line), "")
    return tuple(f"{name}: {_steady(meta)}" for name, meta in _PLACEHOLDER.findall(signature))


def _guards(artifacts: list[Artifact]) -> frozenset[str]:
    text = next((a.payload for a in artifacts if a.kind == "guards" and a.payload), "")
    # torch appends how long the guards took to check: a timing, not a guard.
    return frozenset(_guard(line) for line in text.splitlines() if line.strip() and not _TIMING.match(line))


def signatures(trace: Trace, facts: TraceFacts | None = None) -> dict[str, CompileSignature]:
    facts = facts or analyze(trace)
    by_compile: dict[str, list[Artifact]] = {}
    for artifact in trace.artifacts:
        if artifact.compile_id:
            by_compile.setdefault(artifact.compile_id, []).append(artifact)
    found = {}
    for compile in facts.compiles:
        artifacts = by_compile.get(compile.compile_id, [])
        cid = compile.compile_id
        found[cid] = CompileSignature(
            compile_id=cid,
            line=user_line(trace, cid) or compile.frame,
            recompile_reasons=tuple(_steady(reason) for r in facts.recompiles if r.compile_id == cid
                                    for reason in r.reasons),
            inputs=_inputs(artifacts),
            guards=_guards(artifacts),
            graphs=compile.graphs,
            graph_breaks=tuple(f"{b.location}: {b.reason}" for b in facts.graph_breaks if b.compile_id == cid),
            collectives=collectives_in(artifacts),
            cache=tuple(f"{event.cache} {event.outcome}" for event in compile.cache),
            frame=(compile.frame or "").split(" (", 1)[0],
        )
    return found


def _describe(value: object, others: list[object]) -> str:
    """A value in words; for sets, what this rank has that another lacks (the whole set is too long), each guard in the
    user's words (wording.said_guard, as the lines that differ say them): a group's value is shown where no line is."""
    if isinstance(value, frozenset):
        extra = sorted(value - set().union(*[other for other in others if isinstance(other, frozenset)]))
        missing = sorted(set().union(*[other - value for other in others if isinstance(other, frozenset)]))
        parts = [f"{sign} {said}" for sign, lines in (("+", extra), ("-", missing))
                 for said in list(dict.fromkeys(filter(None, map(said_guard, lines))))[:2]]
        unsaid = sum(1 for line in (*extra, *missing) if said_guard(line) is None and not is_structure(line))
        if unsaid:  # torch's own helper checks: counted; their text is in each rank's trace
            parts.append(f"{unsaid} check{'s' if unsaid != 1 else ''} of torch's own")
        count = sum(1 for line in value if not is_structure(line))  # the tree's managers are no guards
        return f"{count} guard{'s' if count != 1 else ''}" + (" (" + "; ".join(parts) + ")" if parts else "")
    if isinstance(value, tuple):
        if not value:
            return "none"
        return ", ".join(str(item) for item in value)
    return str(value)


def compare(traces: dict[int, Trace], facts: dict[int, TraceFacts] | None = None) -> Divergence:
    """Compare every rank's compiles, then what torch logged for comparing ranks; ranks without a trace are left
    out (the merge names them). ``facts``: each rank's analysis, when the caller has it already."""
    facts = {rank: (facts or {}).get(rank) or analyze(trace) for rank, trace in sorted(traces.items())}
    per_rank = {rank: signatures(trace, facts[rank]) for rank, trace in sorted(traces.items())}
    ranks = tuple(per_rank)
    all_ids = sorted({cid for sigs in per_rank.values() for cid in sigs}, key=sort_key)

    def line_of(cid: str) -> str | None:
        return next((per_rank[rank][cid].line for rank in ranks if cid in per_rank[rank] and per_rank[rank][cid].line),
                    None)

    differences: list[Difference] = []
    absent: list[tuple[str, tuple[int, ...]]] = []  # compile ids some ranks lack, with the ranks that have them
    for cid in all_ids:
        having = tuple(rank for rank in ranks if cid in per_rank[rank])
        if len(having) < len(ranks):
            absent.append((cid, having))
            continue
        frames = {rank: per_rank[rank][cid].frame for rank in ranks}
        if all(frame and frame != "?" for frame in frames.values()) and len(set(frames.values())) > 1:
            grouped = group_ranks(frames)
            said = f"compile {cid} is " + by_ranks([(group, f"`{frame}`") for group, frame in grouped])
            lines = {rank: per_rank[rank][cid].line for rank in ranks}
            line = next(iter(lines.values())) if len(set(lines.values())) == 1 else None  # each rank's own, below
            detail = tuple(f"{ranks_text(group)}: `{frame}` from {lines[group[0]] or 'an unknown line'}"
                           for group, frame in grouped)
            differences.append(Difference(FRAME, cid, tuple(grouped), line, FRAME_WHY, said, detail))
            continue  # one function's inputs and guards against another's: no difference worth saying
        said_here: set[str] = set()
        for aspect, read, why in ASPECTS:
            values = {rank: read(per_rank[rank][cid]) for rank in ranks}
            if aspect == "guards" and not all(values.values()):
                continue  # a rank whose log holds no guards for it: nothing to compare, not a difference
            grouped = group_ranks(values)
            if len(grouped) > 1:
                described = tuple((group, _describe(value, [v for g, v in grouped if g != group]))
                                  for group, value in grouped)
                lines = _reason_words(cid, grouped, traces) if aspect == "recompile reasons" \
                    else _words(aspect, values)
                if lines and set(lines) <= said_here:
                    continue  # the guards say again what the inputs said
                said_here.update(lines)
                said = lines[0] + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else "") if lines else ""
                meaning = why
                if aspect == "collectives":
                    meaning, lines = _collectives_meaning({rank: per_rank[rank][cid] for rank in ranks}, why, lines)
                differences.append(Difference(aspect, cid, described, line_of(cid), meaning, said, tuple(lines)))
    differences += _presence(absent, ranks, per_rank, line_of, traces)
    logged_differences = [log_comparison.schedules(traces, line_of), log_comparison.cache_patterns(facts, line_of),
                          log_comparison.execution_order(traces, line_of), log_comparison.tensor_meta(traces, line_of)]
    estimates, estimates_note = log_comparison.estimates(traces)
    logged_differences.append(log_comparison.estimate_difference(estimates, line_of))
    differences += [found for found in logged_differences if found is not None]
    order = {aspect: index for index, aspect in enumerate([PRESENCE, FRAME, *(a for a, _, _ in ASPECTS)])}
    differences.sort(key=lambda d: (not d.compile_id, sort_key(d.compile_id) if d.compile_id else (),
                                    order.get(d.aspect, len(order))))
    notes = tuple(note for note in (log_comparison.waits_note(log_comparison.missing_waits(traces)), estimates_note) if note)
    return Divergence(ranks, tuple(differences), estimates, notes, _compared(traces))


def _collectives_meaning(signatures: dict[int, CompileSignature], why: str, lines: list[str]) -> tuple[str, list[str]]:
    """What different collectives in one compile's graphs mean, as strongly as the graphs show it, and where the
    ranks' collectives part (a line beside the others)."""
    steps = {rank: steps_that_run(s.collectives, s.compile_id, s.frame) for rank, s in signatures.items()}
    found = parting(steps)
    if found is None:  # the graphs that run agree; an earlier graph of the pipeline differs
        return why, lines
    where, meaning = parting_words(found, steps, "none (its graph ends)")
    return meaning, [*lines, where]


def _reason_words(cid: str, grouped: list, traces: dict[int, Trace]) -> list[str]:
    """``recompiled because the size of `x` changed (dimension 0: 4 before, now 2) on rank 0 and …``: each group's
    failure against the version it failed (torch lists every earlier version's too), in the user's names."""
    said = [(group, named_failure(traces[group[0]], cid, value[0]).sentence) for group, value in grouped if value]
    return [f"recompiled because {by_ranks(said)}"] if said else []


def _words(aspect: str, values: dict[int, object]) -> list[str]:
    """The lines that differ, in words, for the aspects that can say them so."""
    if aspect == "input tensor metadata":
        return input_words(values)  # type: ignore[arg-type]
    if aspect == "guards":
        return guard_words(values)  # type: ignore[arg-type]
    if aspect == "collectives":
        return collective_words(values)  # type: ignore[arg-type]
    return []


def _presence(absent: list[tuple[str, tuple[int, ...]]], ranks: tuple[int, ...], per_rank: dict,
              line_of: Callable[[str], str | None], traces: dict[int, Trace]) -> list[Difference]:
    """Compile ids only some ranks compiled, runs of them with the same ranks said once: ``ranks 1, 3 compiled
    0/1–0/14 alone``."""
    found: list[Difference] = []
    runs: list[tuple[tuple[int, ...], list[str]]] = []
    for cid, having in absent:
        if runs and runs[-1][0] == having:
            runs[-1][1].append(cid)
        else:
            runs.append((having, [cid]))
    for having, ids in runs:
        missing = tuple(rank for rank in ranks if rank not in having)
        count = f"{len(ids)} compile{'s' if len(ids) != 1 else ''}"
        said = f"{ranks_text(having)} compiled {ids_text(ids)} ({count}), which {ranks_text(missing)} did not"
        # Against the version it failed only (torch lists every earlier version's failure), in words.
        reasons = [f"{cid} on {ranks_text(group)}: recompiled because "
                   f"{named_failure(traces[group[0]], cid, value[0]).sentence}"
                   for cid in ids
                   for group, value in group_ranks({rank: per_rank[rank][cid].recompile_reasons for rank in having})
                   if value]
        groups = ((having, f"compiled {ids_text(ids)}"), (missing, f"did not compile {'it' if len(ids) == 1 else 'them'}"))
        found.append(Difference(PRESENCE, ids[0], groups, line_of(ids[0]), PRESENCE_WHY, said, tuple(reasons)))
    return found


def _compared(traces: dict[int, Trace]) -> tuple[str, ...]:
    """What torch's records let the ranks be compared on, beyond each compile's signature."""
    names = {artifact.name for trace in traces.values() for artifact in trace.artifacts}
    return tuple(words for name, words in ((log_comparison.SCHEDULE, "collective schedules"),
                                           (log_comparison.EXECUTION, "graph execution order"),
                                           (log_comparison.ESTIMATES, "Inductor's runtime estimates and output metadata"),
                                           ("inductor_output_code", "waits in the output code"))
                 if name in names)
