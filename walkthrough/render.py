"""HTML for excerpts and symbol links: Pygments-highlighted, real line numbers, everything escaped."""

from __future__ import annotations

from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

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


def ran_mark(count: int | None) -> str:
    """The gutter of a line in an excerpt with a recording: how often it ran, or blank."""
    if not count:
        return '<span class="wt-hits"></span>'
    return f'<span class="wt-hits">{count}×</span>'


# What a count is: Python reports a line each time execution moves onto it, so the first line of a statement
# written over several lines is reported again when the call on it runs after its arguments' lines.
RAN_COUNT_NOTE = ("Counts are Python's line events, not executions: the first line of a statement written "
                  "over several lines is counted again each time execution comes back to it (a call runs "
                  "after the argument lines below it), so it can read 4× or 6× in a function that ran twice.")


def ran_legend(ran: RanLines) -> str:
    classes = "wt-ran-legend" + ("" if ran.marked else " wt-ran-none")
    swatch = '<span class="wt-ran-swatch"></span>' if ran.marked else ""
    note = f'<div class="wt-ran-note">{escape(RAN_COUNT_NOTE)}</div>' if ran.marked and ran.counts else ""
    return f'<div class="{classes}">{swatch}{escape(ran.legend)}</div>{note}'


def render_excerpt(excerpt: Excerpt, ran: RanLines | None = None) -> str:
    """The excerpt as one HTML block: header (path, span, version, link), numbered code, callout notes.

    With ``ran`` (a recording's executed lines), each line that ran is marked with its count, and a
    legend under the code says which run that was, or why nothing is marked."""
    callout_at = {}
    for callout in excerpt.callouts:
        callout_at.setdefault(callout.line, []).append(callout.number)
    emphasized = set(excerpt.emphasized)
    rows = []  # block-level spans, so no newline between them (a <pre> would show it as a blank line)
    for offset, fragment in enumerate(_highlighted_lines(excerpt.code)):
        number = excerpt.start + offset
        line_url = source_url(excerpt.path, number, None, excerpt.git_version)
        classes = "wt-line wt-emph" if number in emphasized else "wt-line"
        count = ran.counts.get(number) if ran and ran.marked else None
        gutter = ran_mark(count) if ran and ran.marked else ""
        if count:
            classes += " wt-ran"
        marks = "".join(f'<span class="wt-callout" data-callout="{n}">{n}</span>'
                        for n in callout_at.get(number, []))
        title = f' title="ran {count}×"' if count else ""
        rows.append(f'<span class="{classes}"{title}>{gutter}'
                    f'<a class="wt-lineno" href="{escape(line_url)}">{number}</a><span class="wt-code">{fragment}</span>{marks}</span>')
    span = f"lines {excerpt.start}–{excerpt.end}" if excerpt.end != excerpt.start else f"line {excerpt.start}"
    header = (f'<div class="wt-header"><a class="wt-path" href="{escape(excerpt_url(excerpt))}">'
              f'{escape(excerpt.path)}</a> <span class="wt-span">{span}</span> '
              f'<span class="wt-version">torch {escape(excerpt.torch_version)}</span></div>')
    caption = (f'<div class="wt-caption">{escape(excerpt.spec.caption)}</div>'
               if excerpt.spec.caption else "")
    notes = ""
    if excerpt.callouts:
        items = "".join(f'<li value="{c.number}" data-line="{c.line}">{escape(c.note)}</li>'
                        for c in excerpt.callouts)
        notes = f'<ol class="wt-notes">{items}</ol>'
    legend = ran_legend(ran) if ran else ""
    return (f'<div class="wt-excerpt" data-symbol="{escape(excerpt.spec.target)}">{header}{caption}'
            f'<div class="highlight"><pre>{"".join(rows)}</pre></div>{notes}{legend}</div>')
