"""HTML for excerpts (templates/excerpt.html) and symbol links: Pygments-highlighted, real line numbers, escaped."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from tracers.report.templating import render_from, safe
from tracers.vocabulary.releases import source_url
from walkthrough.excerpt import Excerpt
from walkthrough.ranlines import RanLines
from walkthrough.symbols import Symbol


def _highlighted_lines(code: str) -> list[str]:
    """One HTML fragment per source line: Pygments closes its spans at each line end."""
    html = highlight(code, PythonLexer(stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True))
    lines = html.split("\n")
    if lines and lines[-1] == "" and len(lines) > code.count("\n") + 1:
        lines.pop()
    return lines


def excerpt_url(excerpt: Excerpt) -> str:
    return source_url(excerpt.path, excerpt.start, excerpt.end, excerpt.git_version)


def symbol_url(symbol: Symbol, git_version: str) -> str:
    return source_url(symbol.path, symbol.start, symbol.end, git_version)


# What a count is: Python reports a line each time execution moves onto it, so the first line of a statement
# written over several lines is reported again when the call on it runs after its arguments' lines.
RAN_COUNT_NOTE = ("Counts are Python's line events, not executions: the first line of a statement written "
                  "over several lines is counted again each time execution comes back to it (a call runs "
                  "after the argument lines below it), so it can read 4× or 6× in a function that ran twice.")


@dataclass(frozen=True)
class ExcerptLine:
    number: int
    url: str
    classes: str
    count: int | None  # times it ran in the recording; None or 0: not
    code: Markup  # Pygments' markup of the line
    callouts: tuple[int, ...]


@dataclass(frozen=True)
class ExcerptView:
    target: str
    url: str
    path: str
    span: str
    torch_version: str
    caption: str
    lines: tuple[ExcerptLine, ...]
    callouts: tuple  # the excerpt's Callouts: number, line, note
    ran: RanLines | None
    count_note: str = RAN_COUNT_NOTE


def render_excerpt(excerpt: Excerpt, ran: RanLines | None = None) -> str:
    """The excerpt as one HTML block (templates/excerpt.html): header (path, span, version, link), numbered code,
    callout notes.

    With ``ran`` (a recording's executed lines), each line that ran is marked with its count, and a
    legend under the code says which run that was, or why nothing is marked."""
    callout_at = {}
    for callout in excerpt.callouts:
        callout_at.setdefault(callout.line, []).append(callout.number)
    emphasized = set(excerpt.emphasized)
    lines = []
    for offset, fragment in enumerate(_highlighted_lines(excerpt.code)):
        number = excerpt.start + offset
        classes = "wt-line wt-emph" if number in emphasized else "wt-line"
        count = ran.counts.get(number) if ran and ran.marked else None
        if count:
            classes += " wt-ran"
        lines.append(ExcerptLine(number, source_url(excerpt.path, number, None, excerpt.git_version), classes, count,
                                 safe(fragment), tuple(callout_at.get(number, []))))
    span = f"lines {excerpt.start}–{excerpt.end}" if excerpt.end != excerpt.start else f"line {excerpt.start}"
    view = ExcerptView(excerpt.spec.target, excerpt_url(excerpt), excerpt.path, span, excerpt.torch_version,
                       excerpt.spec.caption, tuple(lines), tuple(excerpt.callouts), ran)
    return render_from("walkthrough", "excerpt.html", view=view)
