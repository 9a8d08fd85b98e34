"""The findings as terminal text: the summary opens with them, the pytest plugin and ``%%trace`` print them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from tracers.analysis.finding_type import Finding
from tracers.analysis.report_model import Report
from tracers.analysis.trace_facts import TraceFacts
from tracers.vocabulary.durations import duration_s

PageUrl = Callable[[str], "str | None"]  # a docs path (``chapters/05-graph-breaks#section``) -> its URL, if built


def render_findings(found: list[Finding], facts: TraceFacts, bold: Callable[[str], str] = str,
                    dim: Callable[[str], str] = str, page_url: PageUrl | None = None, width: int = 100) -> list[str]:
    """The old call form of :func:`findings_lines` (says the headline itself)."""
    from tracers.analysis.findings import headline  # the old call form only: the report model has it

    return findings_lines(found, headline(found, facts), bold, dim, page_url, width)


def report_findings(report: Report, bold: Callable[[str], str] = str, dim: Callable[[str], str] = str,
                    page_url: PageUrl | None = None, width: int = 100) -> list[str]:
    """One trace's findings as :func:`findings_lines` says them, with the fixes --check-fixes checked."""
    return findings_lines(report.findings, report.headline, bold, dim, page_url, width, report.checks_for)


def findings_lines(found: tuple[Finding, ...] | list[Finding], headline: str, bold: Callable[[str], str] = str,
                   dim: Callable[[str], str] = str, page_url: PageUrl | None = None, width: int = 100,
                   checks_for: Callable[[Finding], list] | None = None) -> list[str]:
    """``Findings`` and, for each, what happened, where, what it cost, the fix and where the walkthrough explains it."""
    lines = [bold("Findings") + dim(f"  ({headline})" if _problems(found) else "")]
    if not _problems(found):
        lines.append("  " + headline)
    number = 0
    for finding in found:
        if finding.informational:
            lines.append(f"  note  {finding}")
            for part in finding.parts:
                lines.extend(_detail("·", part, width))
            lines.extend(_detail("fix", finding.fix, width))
            lines.extend(_detail("why", _explained(finding, page_url), width))
            continue
        number += 1
        lines.append(f"  {number}. {finding.what}" + (f" — {finding.cost}" if finding.cost else ""))
        lines.extend(_detail("where", _where(finding), width))
        for part in finding.parts:
            lines.extend(_detail("·", part, width))
        lines.extend(_detail("events", finding.events_text, width))
        lines.extend(_detail("fix", finding.fix, width))
        checked = checks_for(finding) if checks_for else None
        for remedy, check in checked or ():
            lines.extend(_detail("check", f"{remedy.said}: {check.said if check else 'not checked'}", width))
        if checked == [] and finding.fix and "Nothing to fix" not in finding.fix:
            lines.extend(_detail("check", "not checked: a change to your code, which the tracer does not make", width))
        lines.extend(_detail("torch", _torch_says(finding), width))
        lines.extend(_detail("note", finding.hint_note, width))
        lines.extend(_detail("why", _explained(finding, page_url), width))
    return lines


def render_recap(found: list[Finding], bold: Callable[[str], str] = str, width: int = 100) -> list[str]:
    """The findings once more, one line each, where a long summary ends (the list above has scrolled away)."""
    problems = _problems(found)
    if not problems:
        return []
    lines = [bold("Findings, in short")]
    for number, finding in enumerate(problems, 1):
        cost = duration_s(finding.cost_s) if finding.cost_s >= 0.0005 else "—"
        where = f"{finding.user_line.short if finding.user_line else finding.where}  " if finding.where else ""
        text = f"  {number}. {cost:>8}  {where}{finding.what}"
        lines.append(text if len(text) <= width else text[: width - 1] + "…")
    return lines


def _problems(found: list[Finding]) -> list[Finding]:
    return [finding for finding in found if not finding.informational]


def _where(finding: Finding) -> str | None:
    line = finding.user_line
    if line is None:
        return finding.where
    code = f"  ({line.code})" if line.code else ""
    return f"{finding.where}{code}"


def _torch_says(finding: Finding) -> str | None:
    """Torch's own hint when ours is the fix shown, and torch's page for this graph break."""
    parts = [finding.hint] if finding.hint and finding.hint != finding.fix else []
    if finding.torch_link:
        parts.append(f"{finding.graph_break_id or 'more'}: {finding.torch_link}")
    return " ".join(parts) or None


def _explained(finding: Finding, page_url: PageUrl | None) -> str | None:
    explained = finding.explained
    if explained is None:
        return None
    url = page_url(explained.path) if page_url else None
    return f"{explained.title}: {url}" if url else f"the walkthrough's chapter “{explained.title}”"


def _detail(label: str, text: str | None, width: int) -> list[str]:
    if not text:
        return []
    indent = " " * 12
    # a code span to paste or a link stays whole on its line, however long: a break inside it would be copied too
    wrapped = textwrap.wrap(" ".join(text.split()), width=width - len(indent), break_long_words=False,
                            break_on_hyphens=False) or [""]
    return [f"     {label:<6} {wrapped[0]}", *(indent + line for line in wrapped[1:])]
