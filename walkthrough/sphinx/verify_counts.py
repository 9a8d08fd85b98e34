"""The ``{verify-counts}`` directive: one row per recorded verify report, counted from the reports themselves."""

from __future__ import annotations

from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from walkthrough.banner import RecordedReport, ReportFormatError, read_reports
from walkthrough.sphinx.directives import WalkthroughError

COLUMNS = (("hook", "hook targets"), ("symbol", "linked symbols"), ("excerpt", "excerpts"), ("fact", "facts"))
ORDER = ("SAME", "MOVED", "CHANGED", "MISSING")


def _cell(kind: str, report: RecordedReport) -> str:
    counts = report.counts()[kind]
    if kind == "fact":
        held = counts["SAME"] + counts["MOVED"]
        rest = [f"{n} {status.lower()}" for status, n in sorted(counts.items()) if status not in ("SAME", "MOVED")]
        return ", ".join([f"{held} hold", *rest])
    text = " / ".join(str(counts[status]) for status in ORDER)
    others = [f"{n} {status}" for status, n in sorted(counts.items()) if status not in ORDER]
    return ", ".join([text, *others])


def counts_table(reports: tuple[RecordedReport, ...]) -> str:
    """HTML table: release (linked to its report), commit, the four kinds' counts, and whether anything drifted."""
    head = "".join(f"<th>{escape(title)}</th>" for title in ("release", "git", *(t for _, t in COLUMNS), "drift"))
    rows = []
    for report in reports:
        drifted = any(status in ("CHANGED", "MISSING") for status in report.statuses.values())
        cells = [f'<a href="{escape(report.release)}.html">{escape(report.release)}</a>',
                 f"<code>{escape(report.git)}</code>", *(escape(_cell(kind, report)) for kind, _ in COLUMNS),
                 "yes" if drifted else "no"]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return (f'<table class="docutils align-default wt-verify-counts"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


class VerifyCounts(SphinxDirective):
    """``{verify-counts}``: SAME / MOVED / CHANGED / MISSING per kind for every report in the reports folder."""

    def run(self) -> list[nodes.Node]:
        folder = Path(self.env.srcdir, self.config.walkthrough_verify_reports)
        try:
            reports = read_reports(folder)
        except ReportFormatError as exc:
            raise WalkthroughError(str(exc)) from None
        if not reports:
            raise WalkthroughError(f"{self.env.docname}: no verify reports in {folder}")
        for report in reports:
            self.env.note_dependency(str(folder / f"{report.release}.md"))
        return [nodes.raw("", counts_table(reports), format="html")]
