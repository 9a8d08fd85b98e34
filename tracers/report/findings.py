"""The findings block: each root cause with where, what it cost, the fix, torch's word and the chapter that explains it."""

from __future__ import annotations

from tracers.analysis.finding_type import Finding
from tracers.analysis.report_model import Report
from tracers.vocabulary.exported import export_line, has_problems, no_problems_in_compiles

from .options import Links
from .text import esc


def report_findings(report: Report, links: Links, export: dict | None = None) -> str:
    """The page's findings block of one trace's report."""
    return findings_html(report.findings, report.headline, links, export, report.compiled)


def findings_html(found: tuple[Finding, ...] | list[Finding], headline: str, links: Links,
                  export: dict | None = None, compiled: bool = True) -> str:
    """``export``: a TORCH_TRACE log's torch.export part (vocabulary/exported.py); a log of export alone
    (``compiled`` false) is said to be one, instead of a clean run of 0 graphs."""
    problems = [finding for finding in found if not finding.informational]
    items = "".join(_item(finding, links) for finding in found)
    state = "wt-findings" + ("" if problems or has_problems(export) else " wt-findings-clean")
    listing = f'<ol class="wt-finding-list">{items}</ol>' if items else ""
    said = export_line(export) if export and not compiled else \
        no_problems_in_compiles(headline, export)
    return (f'<div class="{state}"><h3 class="wt-findings-title">Findings</h3>'
            f'<p class="wt-findings-headline">{esc(said)}</p>{listing}</div>')


def _item(finding: Finding, links: Links) -> str:
    rows = [("where", _where(finding)), ("what happened", _parts(finding)), ("events", esc(finding.events_text)),
            ("fix", esc(finding.fix or "")), ("torch says", _torch(finding)), ("note", esc(finding.hint_note or "")),
            ("torch's text", _detail(finding)), ("explained in", _explained(finding, links))]
    details = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows if value)
    cost = (f' <span class="wt-finding-cost" title="{esc(_COST_TITLE)}">{esc(finding.cost)}</span>'
            if finding.cost else "")
    classes = "wt-finding" + (" wt-finding-note" if finding.informational else "")
    return (f'<li class="{classes}" data-kind="{esc(finding.kind)}"><div class="wt-finding-what">'
            f'{esc(finding.what)}{cost}</div><dl class="wt-finding-details">{details}</dl></li>')


_COST_TITLE = ("Compile time this cause brought about: each compile's time is counted in one finding at most, "
               "whole where the cause is why the compile exists (a recompile, the code after a break), else the "
               "part a restart threw away. So the costs never add up to more than the run's compile time.")


def _parts(finding: Finding) -> str:
    if not finding.parts:
        return ""
    return '<ul class="wt-finding-parts">' + "".join(f"<li>{esc(part)}</li>" for part in finding.parts) + "</ul>"


def _detail(finding: Finding) -> str:
    """torch's own words (guard failures), folded: the finding says them as a sentence above."""
    if not finding.detail:
        return ""
    return (f'<details class="wt-finding-raw"><summary>as torch logged it</summary>'
            f'<pre>{esc(finding.detail)}</pre></details>')


def _where(finding: Finding) -> str:
    if not finding.where:
        return ""
    code = finding.user_line.code if finding.user_line else ""
    return f"<code>{esc(finding.where)}</code>" + (f" <code class=\"wt-finding-code\">{esc(code)}</code>" if code else "")


def _torch(finding: Finding) -> str:
    parts = [esc(finding.hint)] if finding.hint and finding.hint != finding.fix else []
    if finding.explanation:
        parts.insert(0, esc(finding.explanation))
    if finding.torch_link:
        label = esc(finding.graph_break_id or "torch's page on it")
        parts.append(f'<a href="{esc(finding.torch_link)}">{label}</a>')
    return " ".join(parts)


def _explained(finding: Finding, links: Links) -> str:
    explained = finding.explained
    if explained is None:
        return ""
    url = links.page_url(explained.path)
    title = esc(explained.title)
    return f'<a href="{esc(url)}">{title}</a>' if url else f"the walkthrough's chapter “{title}”"
