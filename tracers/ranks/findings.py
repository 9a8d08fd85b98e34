"""What the merged summary says of each process's findings and compile rows: the same everywhere, or where they differ."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tracers.analysis.findings import Finding
from tracers.analysis.trace_facts import TraceFacts
from tracers.terminal.style import Style
from tracers.tracefile import compile_identity
from tracers.vocabulary.durations import duration_s

from .collectives import meets_others
from .merge import MergedRun
from .waits import idle_while_compiling
from .wording import GROUP_FROM, ranks_text


@dataclass(frozen=True)
class SharedFinding:
    """One finding as the processes have it: the worst instance, and which processes have one like it."""

    finding: Finding
    ranks: tuple[int, ...]
    everywhere: bool  # every process that left a trace has it (and there are several)
    others_wait: str | None = None  # the other ranks' idle time while these compiled: what they wait for
    numbers_of: int | None = None  # where the processes' numbers differ: the one whose finding is said (the worst)


def shared_findings(run: MergedRun, found: Mapping[int, Sequence[Finding]]) -> list[SharedFinding]:
    """Each process's findings (the report model's, per rank), grouped by what they are (their numbers may differ),
    worst first."""
    by_key: dict[tuple[str, str, str | None], list[tuple[int, Finding]]] = defaultdict(list)
    for rank, _ in run.present:
        for finding in found.get(rank, ()):
            by_key[finding.key].append((rank, finding))
    everyone = {rank for rank, _ in run.present}
    shared = []
    for group in by_key.values():
        ranks = tuple(sorted({rank for rank, _ in group}))
        worst_rank, worst = max(group, key=lambda item: item[1].cost_s)
        everywhere = set(ranks) == everyone and len(everyone) > 1
        wait = None if everywhere or worst.informational else _others_wait(run, group)
        differ = len({finding.what for _, finding in group}) > 1  # one kind of finding, other counts per process
        shared.append(SharedFinding(worst, ranks, everywhere, wait, worst_rank if differ else None))
    return sorted(shared, key=lambda item: (item.finding.informational, -item.finding.cost_s))


def _others_wait(run: MergedRun, group: list[tuple[int, Finding]]) -> str | None:
    """``rank 0 compiled nothing during 862 ms of it: …``: the ranks without the finding sat idle while these
    compiled, so at their next collective (DDP's gradient all-reduce, FSDP's all-gather) they wait for them."""
    compiles: dict[int, tuple[str, ...]] = defaultdict(tuple)
    for rank, finding in group:
        compiles[rank] += finding.compile_ids
    idle = idle_while_compiling(run, dict(compiles))
    traces = run.rank_traces
    # a wait needs a collective to wait at: said only where every rank named shows it takes part in some
    if not idle or not all(meets_others(traces[rank]) for rank in [*idle, *compiles] if rank in traces):
        return None
    ranks = sorted(idle)
    many = len(ranks) > 1
    return (f"{names_text(run, ranks)} compiled nothing during {duration_s(max(idle.values()))} of it: "
            f"{'they' if many else 'it'} went on to the next collective and waited there for "
            f"{names_text(run, sorted(compiles))} (up to that long)")


def who(run: MergedRun, shared: SharedFinding) -> str:
    """``every process``, or the processes named; where their numbers differ, whose numbers are said."""
    said = "every process" if shared.everywhere else names_text(run, shared.ranks)
    if shared.numbers_of is not None:
        said += f" (the numbers are {run.names[shared.numbers_of]}'s; the others' differ)"
    return said


def names_text(run: MergedRun, ranks: tuple[int, ...] | list[int]) -> str:
    """``ranks 0–4, 6, 7`` when they are all ranks of the job and more than two, else their names one by one."""
    if len(ranks) > 2 and all(run.names[rank] == f"rank {rank}" for rank in ranks):
        return ranks_text(ranks)
    return ", ".join(run.names[rank] for rank in ranks)


def findings_lines(run: MergedRun, style: Style, found: Mapping[int, Sequence[Finding]]) -> list[str]:
    """The grouped findings: one said once for every process that has it, with the processes named."""
    shared = shared_findings(run, found)
    if not shared:
        return [style.bold("Findings") + "  " + style.green("none on any process")]
    lines = [style.bold("Findings") + style.dim("  (per finding: the processes that have it; worst first)")]
    for item in shared:
        mark = style.dim if item.everywhere else style.yellow
        lines.append(f"  {item.finding}")
        fix = f"  fix: {_clip(item.finding.fix)}" if item.finding.fix else ""
        lines.append("    " + mark(f"on {who(run, item)}") + fix)
        if item.others_wait:
            lines.append("    " + style.yellow(item.others_wait))
    return lines


def compile_lines(run: MergedRun, style: Style, facts: Mapping[int, TraceFacts]) -> list[str]:
    """One row per compile id: its frame, and per process the graphs it produced and the calls they served (the report
    model's facts, per rank)."""
    rows: dict[str, dict[int, str]] = defaultdict(dict)
    frames: dict[str, dict[int, str]] = defaultdict(dict)  # each rank's own: ranks may compile other frames under one id
    for rank, _ in run.present:
        fact = facts.get(rank)
        for compile_facts in fact.frame_compiles if fact is not None else ():
            calls = f", {compile_facts.calls} call{'s' if compile_facts.calls != 1 else ''}" \
                if compile_facts.calls is not None else ""
            rows[compile_facts.compile_id][rank] = f"{compile_facts.graphs}g{calls}"
            frames[compile_facts.compile_id][rank] = (compile_facts.frame or "?").split(" (", 1)[0]
    if not rows:
        return []
    for compile_id, by_rank in frames.items():
        if len(set(by_rank.values())) > 1:  # the frame said in each rank's cell, and the frame column says so
            rows[compile_id] = {rank: f"{_clip(by_rank[rank], 24)} {cell}" for rank, cell in rows[compile_id].items()}
    lines = [style.bold("Compiles") + style.dim("  (per process: graphs produced, calls their code served)")]
    for compile_id in sorted(rows, key=compile_identity.sort_key):
        by_cell: dict[str, list[int]] = defaultdict(list)
        for rank, cell in sorted(rows[compile_id].items()):
            by_cell[cell].append(rank)
        if len(run.present) >= GROUP_FROM:  # the processes that agree, said once
            cells = "  ".join(f"{names_text(run, ranks)}: {cell}" for cell, ranks in by_cell.items())
        else:
            cells = "  ".join(f"{run.names[rank]}: {cell}" for rank, cell in sorted(rows[compile_id].items()))
        names = set(frames[compile_id].values())
        frame = next(iter(names)) if len(names) == 1 else "frames differ by rank:"
        lines.append(f"  {compile_id:<8}{_clip(frame, 32):<33} {cells}")
    return lines


def _clip(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
