"""What the merged summary says of each process's findings and compile rows: the same everywhere, or where they differ."""

from __future__ import annotations

from collections import defaultdict

from tracers.analysis.findings import Finding, findings
from tracers.analysis.summary import Style
from tracers.tracefile import compile_identity

from .merge import MergedRun


def findings_lines(run: MergedRun, style: Style) -> list[str]:
    """Each process's findings, grouped: a finding every process has is said once; others name their processes."""
    by_key: dict[tuple[str, str, str | None], list[tuple[int, Finding]]] = defaultdict(list)
    for rank, trace in run.present:
        for finding in findings(trace):
            by_key[finding.key].append((rank, finding))
    everyone = {rank for rank, _ in run.present}
    if not by_key:
        return [style.bold("Findings") + "  " + style.green("none on any process")]
    lines = [style.bold("Findings") + style.dim("  (per finding: the processes that have it; worst first)")]
    ordered = sorted(by_key.values(), key=lambda group: -max(finding.cost_s for _, finding in group))
    for group in ordered:
        ranks = sorted({rank for rank, _ in group})
        finding = group[0][1]
        who = "every process" if set(ranks) == everyone and len(everyone) > 1 else \
            ", ".join(run.names[rank] for rank in ranks)
        mark = style.dim if set(ranks) == everyone else style.yellow
        lines.append(f"  {finding}")
        lines.append("    " + mark(f"on {who}") + (f"  fix: {_clip(finding.fix)}" if finding.fix else ""))
    return lines


def compile_lines(run: MergedRun, style: Style) -> list[str]:
    """One row per compile id: its frame, and per process the graphs it produced and the calls they served."""
    rows: dict[str, dict[int, str]] = defaultdict(dict)
    frames: dict[str, str] = {}
    from tracers.analysis.facts import analyze

    for rank, trace in run.present:
        for compile_facts in analyze(trace).frame_compiles:
            calls = f", {compile_facts.calls} call{'s' if compile_facts.calls != 1 else ''}" \
                if compile_facts.calls is not None else ""
            rows[compile_facts.compile_id][rank] = f"{compile_facts.graphs}g{calls}"
            frames.setdefault(compile_facts.compile_id, (compile_facts.frame or "?").split(" (", 1)[0])
    if not rows:
        return []
    lines = [style.bold("Compiles") + style.dim("  (per process: graphs produced, calls their code served)")]
    for compile_id in sorted(rows, key=compile_identity.sort_key):
        cells = "  ".join(f"{run.names[rank]}: {cell}" for rank, cell in sorted(rows[compile_id].items()))
        lines.append(f"  {compile_id:<8}{_clip(frames[compile_id], 32):<33} {cells}")
    return lines


def _clip(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
