"""The ``{verify-counts}`` directive: one row per recorded verify report, counted from the reports themselves."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from tracers.report.templating import render_from
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


@dataclass(frozen=True)
class CountsRow:
    release: str
    git: str
    counts: tuple[str, ...]  # a cell per kind of COLUMNS
    drifted: bool


def counts_table(reports: tuple[RecordedReport, ...]) -> str:
    """HTML table (templates/verify_counts.html): release (linked to its report), commit, the four kinds' counts,
    and whether anything drifted."""
    rows = tuple(CountsRow(report.release, report.git, tuple(_cell(kind, report) for kind, _ in COLUMNS),
                           any(status in ("CHANGED", "MISSING") for status in report.statuses.values()))
                 for report in reports)
    titles = ("release", "git", *(title for _, title in COLUMNS), "drift")
    return render_from("walkthrough", "verify_counts.html", titles=titles, rows=rows)


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
