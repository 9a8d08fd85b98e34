"""Verify's outputs: a terminal table grouped by chapter, a markdown report and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from tracers.vocabulary.releases import source_url
from walkthrough.verify import STATUSES, Finding, Place, Report

REPORT_FORMAT = 1


def _place(place: Place | None) -> str:
    if place is None or not place.file:
        return "-"
    return f"{place.file}:{place.start}-{place.end}"


def _move(finding: Finding) -> str:
    old, new = _place(finding.old), _place(finding.new)
    if finding.old and finding.new and finding.old.file == finding.new.file:
        return f"{old} → {finding.new.start}-{finding.new.end}" if old != new else old
    return f"{old} → {new}" if new != "-" else old


def summary_line(report: Report) -> str:
    counts = report.counts()
    return " · ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]) or "nothing to check"


def _by_chapter(report: Report) -> dict[str, list[Finding]]:
    groups: dict[str, list[Finding]] = {}
    for finding in report.findings:
        groups.setdefault(finding.chapter or "(no chapter)", []).append(finding)
    return groups


def _diff_stat(diff: str) -> str:
    lines = diff.splitlines()[2:]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    return f"+{added} −{removed} normalized lines"


def terminal(report: Report, *, diffs: bool = False) -> str:
    """A readable table: one block per chapter, one row per symbol, excerpt and fact."""
    out = [f"walkthrough verify: locked torch {report.baseline_version} → torch {report.target_version} "
           f"(git {report.target_git[:12] or '?'}, from {report.target_origin})", ""]
    groups = _by_chapter(report)
    width = max((len(f.name) for f in report.findings), default=10)
    width = min(width, 72)
    for chapter, findings in groups.items():
        out.append(chapter)
        for f in findings:
            name = f.name if len(f.name) <= width else f.name[: width - 1] + "…"
            kind = "hook" if f.kind == "symbol" and "hook" in f.uses else f.kind
            note = f"  {f.note}" if f.note else ""
            out.append(f"  {f.status:<9} {kind:<7} {name:<{width}}  {_move(f)}{note}")
            for hint in f.successors:
                score = f" {hint.score:.2f}" if hint.reason == "similar code" else ""
                out.append(f"  {'':<9} {'':<7} ↳ {hint.reason}{score}: {hint.qualname} ({hint.file}:{hint.start})")
            if diffs and f.diff:
                out.extend("      " + line for line in f.diff.splitlines())
        out.append("")
    out.append(f"{summary_line(report)}   ({report.seconds:.1f}s)")
    if report.drifted:
        out.append("drift found: see CHANGED and MISSING above")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: Report, *, diff_text: bool = True) -> str:
    """The report as markdown. Without ``diff_text`` it carries diff sizes and links, no torch code."""
    old_git, new_git = report.baseline_git, report.target_git
    out = [f"# Walkthrough verify: torch {report.target_version}", "",
           f"Locked against torch {report.baseline_version} (git `{old_git[:12]}`); checked against "
           f"torch {report.target_version} (git `{new_git[:12] or '?'}`).", "",
           "| status | symbols & hooks | excerpts | facts |", "|---|---|---|---|"]
    for status in STATUSES:
        row = [report.counts(kind)[status] for kind in ("symbol", "excerpt", "fact")]
        if any(row):
            out.append(f"| {status} | {' | '.join(map(str, row))} |")
    out += ["", f"Exit status {report.exit_code}: " + ("drift found." if report.drifted else "nothing drifted."), ""]
    for chapter, findings in _by_chapter(report).items():
        out += [f"## {chapter}", "", "| status | kind | name | locked | now | note |", "|---|---|---|---|---|---|"]
        for f in findings:
            old = f"[{_place(f.old)}]({source_url(f.old.file, f.old.start, f.old.end, old_git)})" \
                if f.old and f.old.file else "-"
            new = f"[{_place(f.new)}]({source_url(f.new.file, f.new.start, f.new.end, new_git)})" \
                if f.new and f.new.file else "-"
            kind = "hook" if f.kind == "symbol" and "hook" in f.uses else f.kind
            out.append(f"| {f.status} | {kind} | `{_cell(f.name)}` | {old} | {new} | {_cell(f.note)} |")
        out.append("")
        for f in findings:
            if f.status == "CHANGED" and f.diff:
                out.append(f"- **`{f.name}`** changed: {_diff_stat(f.diff)}")
                if diff_text:
                    out += ["", "  ```diff", *("  " + line for line in f.diff.splitlines()), "  ```", ""]
            if f.successors:
                hints = "; ".join(
                    f"{h.reason}{f' {h.score:.2f}' if h.reason == 'similar code' else ''}: "
                    f"[`{h.qualname}`]({source_url(h.file, h.start, h.end, new_git)})" for h in f.successors)
                out.append(f"- **`{f.name}`** is missing; successors: {hints}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _entry(finding: Finding) -> dict:
    data = {
        "qualname" if finding.kind == "symbol" else "name": finding.name,
        "status": finding.status,
        "chapters": list(finding.chapters),
        "uses": list(finding.uses),
        "old": asdict(finding.old) if finding.old else None,
        "new": asdict(finding.new) if finding.new else None,
        "diff": finding.diff,
        "successors": [asdict(s) for s in finding.successors],
        "note": finding.note,
    }
    return data


def to_json(report: Report) -> str:
    data = {
        "format": REPORT_FORMAT,
        "baseline": {"torch_version": report.baseline_version, "git_version": report.baseline_git},
        "target": {"torch_version": report.target_version, "git_version": report.target_git,
                   "origin": report.target_origin},
        "summary": {s: report.counts()[s] for s in STATUSES},
        "exit_code": report.exit_code,
        "seconds": round(report.seconds, 3),
    }
    for kind, key in (("symbol", "symbols"), ("excerpt", "excerpts"), ("fact", "facts")):
        data[key] = [_entry(f) for f in report.findings if f.kind == kind]
    return json.dumps(data, indent=1) + "\n"
