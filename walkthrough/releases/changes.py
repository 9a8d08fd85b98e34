"""The "what changed" page of a release: verify's findings as a changelog of torch.compile's internals, by chapter and stage."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from tracers.vocabulary.releases import source_url
from tracers.tracefile.stages import STAGES, all_targets
from walkthrough.releases.display import successors_html
from walkthrough.verify import Finding, Place, Report

SHOWN = ("CHANGED", "MISSING", "INHERITED", "MOVED", "UNCHECKED")  # SAME is only counted


@dataclass(frozen=True)
class ChapterChanges:
    chapter: str  # docname, e.g. chapters/09-inductor
    stages: tuple[str, ...]  # titles of the pipeline stages that chapter explains
    findings: tuple[Finding, ...]  # in SHOWN order, then as verify listed them
    unchanged: int  # entries of this chapter that are the SAME


def changelog(report: Report) -> tuple[ChapterChanges, ...]:
    """Every chapter with its changed, gone, inherited, moved and unchecked entries, in pipeline order."""
    stage_of_target = {target.name: target.stage for target in all_targets()}
    titles = {stage.id: stage.title for stage in STAGES}
    groups: dict[str, list[Finding]] = {}
    for finding in report.findings:
        groups.setdefault(finding.chapter or "(no chapter)", []).append(finding)
    out = []
    for chapter in sorted(groups):
        findings = groups[chapter]
        shown = sorted((f for f in findings if f.status in SHOWN), key=lambda f: SHOWN.index(f.status))
        stages = [titles[s.id] for s in STAGES if s.chapter == chapter]
        stages += [titles[stage_of_target[f.name]] for f in findings
                   if f.name in stage_of_target and titles[stage_of_target[f.name]] not in stages]
        out.append(ChapterChanges(chapter, tuple(dict.fromkeys(stages)), tuple(shown),
                                  sum(1 for f in findings if f.status == "SAME")))
    return tuple(out)


def _place(place: Place | None, git: str) -> str:
    if place is None or not place.file:
        return "—"
    span = f"{place.start}–{place.end}" if place.end != place.start else f"{place.start}"
    return (f'<a href="{escape(source_url(place.file, place.start, place.end, git))}">'
            f"{escape(place.file)}:{span}</a>")


def render_findings(findings: tuple[Finding, ...], report: Report) -> str:
    """One entry per finding: status, kind, name, where it was and is (links at each commit), note, diff, successors."""
    rows = []
    for f in findings:
        kind = "hook target" if f.kind == "symbol" and "hook" in f.uses else f.kind
        was, now = _place(f.old, report.baseline_git), _place(f.new, report.target_git)
        where = f"{was} → {now}" if f.status != "SAME" else was
        note = f' <span class="wt-muted">{escape(f.note)}</span>' if f.note else ""
        diff = ""
        if f.diff:
            diff = (f'<details class="wt-drift-diff"><summary>normalized diff</summary>'
                    f"<pre>{escape(f.diff)}</pre></details>")
        rows.append(f'<li class="wt-change wt-change-{f.status.lower()}"><span class="wt-drift-badge">{f.status}</span> '
                    f'{escape(kind)} <code>{escape(f.name)}</code>: {where}{note}{diff}'
                    f"{successors_html(f.successors, report.target_git)}</li>")
    return f'<ul class="wt-changes">{"".join(rows)}</ul>'
