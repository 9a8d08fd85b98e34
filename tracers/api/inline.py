"""The trace page as one block of HTML for Jupyter: self-contained, no requests, styles scoped to the block."""

from __future__ import annotations

from tracers.analysis.report_model import Report
from tracers.report.links import chapter_links
from tracers.report.options import PAGE_PAYLOAD_CHARS, Links, RenderOptions
from tracers.vocabulary.releases import source_url

SCOPE = ".wt-trace"  # every rule of the block's stylesheet sits under this class, so the notebook keeps its looks

# The page's own minimum (tracers/report/page.py styles <body>; a notebook cell must not be restyled).
_CODE_CSS = f"{SCOPE} pre, {SCOPE} code {{ font-family: ui-monospace, monospace; }}\n"


def inline_html(report: Report, title: str) -> str:
    """What ``TraceResult._repr_html_`` shows: the trace page's fragment with its CSS inlined and scoped."""
    from tracers.report.executed import installed_source, render_executed
    from tracers.report.fragment import report_fragment, stylesheet
    from tracers.report.highlight import code_css

    trace = report.trace

    def target_url(target: str) -> str | None:
        found = trace.info.target_sources.get(target)
        return (source_url(found[0], found[1], found[2], trace.info.torch_git_sha, trace.info.torch_version)
                or None) if found else None

    # Links to torch's source on GitHub and to a walkthrough built for this torch are plain anchors: nothing is
    # fetched when the block is shown.
    links = Links(source_url=target_url, page_url=chapter_links(None, trace.info.torch_version))
    highlight_css = code_css(f"{SCOPE} .highlight")
    options = RenderOptions(title=title, max_total_payload_chars=PAGE_PAYLOAD_CHARS)
    torch = installed_source() if trace.info.lines_recorded or trace.executed_lines else None
    return (f'<div class="wt-inline"><style>{stylesheet()}{_CODE_CSS}{highlight_css}</style>'
            f'{report_fragment(report, links, options)}'
            f'{render_executed(trace, torch)}</div>')
