"""The traces of both releases made into one comparison: medians over the repeats, counts, findings, code, changes."""

from __future__ import annotations

import re
from pathlib import Path

from tracers.analysis.by_code import by_code
from tracers.analysis.diff import diff, kernel_names, kernels, run_counts
from tracers.analysis.findings import findings
from tracers.analysis.kernels import kernel_map
from tracers.analysis.spread import timing
from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.analysis.waste import own_stage_time
from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER

from .causes import compare_causes, recompiled, run_causes
from .dominant import dominant_statement
from .model import Comparison, GraphCode, ReleaseSide, StageChanges, TimedRow


class Traced:
    """One release's runs, loaded and analysed once."""

    def __init__(self, side: ReleaseSide, traces: list[Trace]) -> None:
        self.side = side
        self.traces = traces
        self.facts: list[TraceFacts] = [analyze(trace) for trace in traces]
        self.code = [by_code(trace) for trace in traces]
        self.causes = [run_causes(findings(trace, facts), facts) for trace, facts in zip(traces, self.facts)]
        self.own = [own_stage_time(trace) for trace in traces]
        self.recompiled = [recompiled(facts) for facts in self.facts]

    @property
    def first(self) -> Trace:
        return self.traces[0]


def _rows(a: list[dict[str, tuple[int, int]]], b: list[dict[str, tuple[int, int]]], keys: list[str]) -> list[TimedRow]:
    """A row per key from ``{key: (ns, calls)}`` per run of each side; calls are the first run's."""
    def calls(runs: list[dict[str, tuple[int, int]]], key: str) -> int:
        return runs[0].get(key, (0, 0))[1]

    return [TimedRow(key, timing(run.get(key, (None, 0))[0] for run in a),
                     timing(run.get(key, (None, 0))[0] for run in b), calls(a, key), calls(b, key))
            for key in keys]


def _stage_runs(traced: Traced) -> list[dict[str, tuple[int, int]]]:
    return [{stage: (ns, facts.stage_calls.get(stage, 0)) for stage, ns in facts.stage_time_ns.items()}
            for facts in traced.facts]


def _own_runs(traced: Traced) -> list[dict[str, tuple[int, int]]]:
    return [{stage: (ns, facts.stage_calls.get(stage, 0)) for stage, ns in own.items()}
            for own, facts in zip(traced.own, traced.facts)]


_CODE_LINE = re.compile(r"^(?P<name>\S+) \((?P<file>[^()]*?)(?::\d+)?\)$")
_RESUMED = re.compile(r"^torch_dynamo_resume_in_(\w+?)_at_\d+$")


def code_key(code: str) -> str:
    """A function's row named without its line (a moved def is the same function): ``step (counter.py)``; the code
    Dynamo resumes after a break is named for its function, as the line it resumes at moves with the source."""
    match = _CODE_LINE.match(code)
    if not match:
        return code
    resumed = _RESUMED.match(match["name"])
    name = f"{resumed[1]}, after a graph break" if resumed else match["name"]
    return f"{name} ({match['file']})"


def _code_runs(traced: Traced) -> list[dict[str, tuple[int, int]]]:
    out = []
    for split in traced.code:
        rows: dict[str, tuple[int, int]] = {}
        for row in split.rows():
            ns, calls = rows.get(code_key(row.code), (0, 0))
            rows[code_key(row.code)] = (ns + row.inclusive_ns, calls + row.calls)
        out.append(rows)
    return out


def _graphs(a: Trace, b: Trace) -> tuple[GraphCode, ...]:
    """Per compile id: the kernels its output code defines, how many fuse several FX nodes, and the extern calls."""
    sides = [_graph_sides(trace) for trace in (a, b)]
    out = []
    for compile_id in sorted(set(sides[0]) | set(sides[1]), key=sort_key):
        (a_names, a_fused, a_extern), (b_names, b_fused, b_extern) = (side.get(compile_id, (None, None, 0))
                                                                      for side in sides)
        out.append(GraphCode(compile_id, a_names, b_names, a_fused, b_fused, a_extern, b_extern))
    return tuple(out)


def _graph_sides(trace: Trace) -> dict[str, tuple[tuple[str, ...], int | None, int]]:
    """compile id -> (kernel names, fused count or None when no codegen was seen, extern calls)."""
    names: dict[str, dict[str, None]] = {}
    for artifact in trace.artifacts:
        if artifact.kind == "code" and artifact.payload and artifact.compile_id is not None:
            found = names.setdefault(artifact.compile_id, {})
            for name in kernel_names(artifact.payload):
                found.setdefault(name, None)
    mapped: dict[str, list] = {}
    for kernel in kernel_map(trace).kernels:
        mapped.setdefault(kernel.compile_id, []).append(kernel)
    out = {}
    for compile_id in set(names) | set(mapped):
        known = mapped.get(compile_id, [])
        codegen = {kernel.name: kernel for kernel in known if not kernel.extern and kernel.source == "codegen"}
        listed = tuple(names.get(compile_id, {})) or tuple(codegen)
        # Fusion is known only where the tracer saw codegen write each kernel (not from a cache's output code).
        fused = sum(len(codegen[name].nodes) > 1 for name in listed) if listed and all(
            name in codegen for name in listed) else (0 if not listed else None)
        out[compile_id] = (listed, fused, sum(kernel.extern for kernel in known))
    return out


def _varied(a: Traced, b: Traced) -> tuple[str, ...]:
    """Counts that differed between the repeats of one side (the table shows the first run's)."""
    out = []
    for traced, release in ((a, a.side.release), (b, b.side.release)):
        if len(traced.traces) < 2:
            continue
        per_run = [{**run_counts(facts), "kernels": len(kernels(trace))}
                   for trace, facts in zip(traced.traces, traced.facts)]
        out.extend(f"{what} under {release}" for what in per_run[0]
                   if len({run[what] for run in per_run}) > 1)
    return tuple(out)


def moved_stages(stages: tuple[TimedRow, ...], a: str, b: str) -> list[tuple[str, str]]:
    """(stage, why) for every stage whose time or behaviour moved, in pipeline order."""
    return [(row.key, why) for row in stages if (why := row.moved(a, b))]


def comparison(command: str, device: str, cache: str, a: Traced, b: Traced,
               changes: tuple[StageChanges, ...] = (), compared_entries: int = 0, changes_note: str = "") -> Comparison:
    stage_a, stage_b = _stage_runs(a), _stage_runs(b)
    stages = sorted({key for run in [*stage_a, *stage_b] for key in run},
                    key=lambda stage: (STAGE_ORDER.get(stage, len(STAGE_ORDER)), stage))
    code_a, code_b = _code_runs(a), _code_runs(b)
    codes = list(dict.fromkeys(key for run in [*code_a, *code_b] for key in run))
    code = _rows(code_a, code_b, codes)
    code.sort(key=lambda row: -abs((row.b.median if row.b else 0) - (row.a.median if row.a else 0)))
    tracing = TimedRow("all of Dynamo's tracing", timing(split.tracing_ns for split in a.code),
                       timing(split.tracing_ns for split in b.code), 0, 0)
    own_a, own_b = _own_runs(a), _own_runs(b)
    owned = sorted({key for run in [*own_a, *own_b] for key in run},
                   key=lambda stage: (STAGE_ORDER.get(stage, len(STAGE_ORDER)), stage))
    first = diff(a.first, b.first)
    counts = (*first.counts, ("kernels", len(first.kernels_a), len(first.kernels_b)))
    return Comparison(
        command=command, device=device, cache=cache, repeat=len(a.traces), a=a.side, b=b.side,
        stages=tuple(_rows(stage_a, stage_b, stages)), tracing=tracing, code=tuple(code), counts=counts,
        varied=_varied(a, b),
        causes=compare_causes(a.causes, b.causes, a.recompiled, b.recompiled),
        graphs=_graphs(a.first, b.first), changes=changes, compared_entries=compared_entries,
        changes_note=changes_note, own_stages=tuple(_rows(own_a, own_b, owned)),
        dominant=dominant_statement(a.own, b.own, a.side.release, b.side.release))


def relative(path: str, folder: Path) -> str:
    """A run's file named from the comparison's folder, so the folder can move."""
    try:
        return str(Path(path).resolve().relative_to(folder.resolve()))
    except ValueError:
        return path
