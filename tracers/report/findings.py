"""The findings block (templates/findings.html): each root cause with where, what it cost, the fix, torch's word and
the chapter that explains it."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.analysis.finding_type import Finding
from tracers.analysis.report_model import Report
from tracers.vocabulary.exported import export_line, has_problems, no_problems_in_compiles

from .options import Links
from .templating import render


@dataclass(frozen=True)
class CheckView:
    """One fix as --check-fixes ran it: its verdict (a mark: good, bad, none), the fix, what it did."""

    verdict: str
    mark: str
    fix: str
    said: str


@dataclass(frozen=True)
class FindingView:
    kind: str
    what: str
    informational: bool
    cost: str
    where: str
    code: str  # the user's line, beside ``where``
    parts: tuple[str, ...]
    events: str
    fix: str
    torch: tuple[str, ...]  # torch's explanation and its hint (where not the fix)
    link: str | None  # torch's page on it
    link_label: str
    note: str
    detail: str  # torch's own words, folded: the finding says them as a sentence above
    explained: str  # the chapter's title; "": none
    explained_url: str | None
    checks: tuple[CheckView, ...] = ()  # --check-fixes: each fix as it ran, best first


@dataclass(frozen=True)
class FindingsView:
    problems: bool
    said: str
    items: tuple[FindingView, ...]
    cost_title: str
    compiled_by: tuple[str, ...] = ()  # a library called torch.compile for the user (report_model.Report)


def report_findings(report: Report, links: Links, export: dict | None = None) -> str:
    """The page's findings block of one trace's report."""
    return findings_html(report.findings, report.headline, links, export, report.compiled, report.checks_for,
                         report.compiled_by)


def findings_html(found: tuple[Finding, ...] | list[Finding], headline: str, links: Links,
                  export: dict | None = None, compiled: bool = True, checks_for=None,  # noqa: ANN001
                  compiled_by: tuple[str, ...] = ()) -> str:
    """``export``: a TORCH_TRACE log's torch.export part (vocabulary/exported.py); a log of export alone
    (``compiled`` false) is said to be one, instead of a clean run of 0 graphs."""
    problems = any(not finding.informational for finding in found) or has_problems(export)
    said = export_line(export) if export and not compiled else no_problems_in_compiles(headline, export)
    items = tuple(_item(finding, links, checks_for(finding) if checks_for else None) for finding in found)
    return render("findings.html", view=FindingsView(bool(problems), said, items, _COST_TITLE, compiled_by))


def _checks(checked: list | None, finding: Finding) -> tuple[CheckView, ...]:
    """The checks beside a finding's fix; "not checked" for a fix the tracer cannot apply (a change to the code)."""
    if checked is None:
        return ()
    views = [CheckView(check.verdict if check else "not checked",
                       ("bad" if check.bad else "good" if check.verdict in ("works", "helps") else "none")
                       if check else "none", remedy.said, check.said.partition(": ")[2] if check else "")
             for remedy, check in checked]
    if not views and finding.fix and "Nothing to fix" not in finding.fix:
        views.append(CheckView("not checked", "none", "the fix above", "a change to your code, which the tracer "
                                                                        "does not make"))
    return tuple(views)


def _item(finding: Finding, links: Links, checked: list | None = None) -> FindingView:
    torch = [finding.hint] if finding.hint and finding.hint != finding.fix else []
    if finding.explanation:
        torch.insert(0, finding.explanation)
    explained = finding.explained
    return FindingView(finding.kind, finding.what, finding.informational, finding.cost or "", finding.where or "",
                       finding.user_line.code if finding.where and finding.user_line else "", tuple(finding.parts),
                       finding.events_text or "", finding.fix or "", tuple(torch), finding.torch_link,
                       finding.graph_break_id or "torch's page on it", finding.hint_note or "", finding.detail or "",
                       explained.title if explained else "", links.page_url(explained.path) if explained else None,
                       _checks(checked, finding))


_COST_TITLE = ("Compile time this cause brought about: each compile's time is counted in one finding at most, "
               "whole where the cause is why the compile exists (a recompile, the code after a break), else the "
               "part a restart threw away. So the costs never add up to more than the run's compile time.")
