"""A whole HTML page for one trace (the personal trace page): the fragment with its CSS inlined."""

from __future__ import annotations

from importlib.resources import files

from pygments.formatters import HtmlFormatter

from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Trace

from .executed import TorchSource, render_executed
from .fragment import render_fragment, stylesheet
from .options import Links, RenderOptions
from .text import esc

# The docs site brings its own page styles and Pygments theme; a lone file needs a minimal version of both.
_PAGE_CSS = ("body { font-family: system-ui, sans-serif; max-width: 72em; margin: 1.5em auto; padding: 0 1em; }\n"
             "pre, code { font-family: ui-monospace, monospace; }\n")


def zoom_script() -> str:
    """The timeline's zoom and pan (static/zoom.js): inline, so the page stays one file that makes no requests."""
    return files(__package__).joinpath("static", "zoom.js").read_text(encoding="utf-8")


def render_page(trace: Trace, facts: TraceFacts | None = None, links: Links = Links(),
                options: RenderOptions = RenderOptions(), torch: TorchSource | None = None) -> str:
    """One self-contained file: opens from disk, no network; a small script zooms the timeline, the rest is HTML.

    When the trace counted executed lines, a last section shows them in ``torch``'s source (the installed
    torch, if it is the one that recorded the trace)."""
    title = options.title or " ".join(trace.info.command[-1:]) or "trace"
    body = f'{render_fragment(trace, facts, links, options)}{render_executed(trace, torch)}'
    return page_document(f"{title} — torch.compile trace", body, links, f"<script>{zoom_script()}</script>")


def page_document(title: str, body: str, links: Links | None, script: str = "") -> str:
    """A lone HTML file around ``body``: the page's minimal styles, the trace styles, Pygments', the site note."""
    pygments_css = HtmlFormatter().get_style_defs(".highlight")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)}</title>'
            f'<style>{_PAGE_CSS}{stylesheet()}{pygments_css}</style></head>'
            f'<body>{body}{render_site_note(links)}{script}</body></html>\n')


def render_site_note(links: Links | None) -> str:
    """Which walkthrough the page's chapter links go to (and how it was found), or why there are none."""
    if links is None or not links.site_note:
        return ""
    if links.site_url:
        return (f'<p class="wt-note wt-site">Chapter links go to {esc(links.site_note)}: '
                f'<a href="{esc(links.site_url)}index.html">{esc(links.site_url)}</a>.</p>')
    return f'<p class="wt-note wt-site">No chapter links: {esc(links.site_note)}.</p>'
