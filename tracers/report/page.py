"""A whole HTML page for one trace (the personal trace page): the fragment with its CSS inlined."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.resources import files

from markupsafe import Markup

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Trace

from .executed import TorchSource, render_executed
from .fragment import fragment_pieces, stylesheet
from .highlight import code_css
from .options import Links, RenderOptions
from .templating import render, safe, stream

# The docs site brings its own page styles and code colours; a lone file needs a minimal version of both.
_PAGE_CSS = ("body { font-family: system-ui, sans-serif; max-width: 72em; margin: 1.5em auto; padding: 0 1em; }\n"
             "pre, code { font-family: ui-monospace, monospace; }\n")


def zoom_script() -> str:
    """The timeline's zoom and pan (static/zoom.js): inline, so the page stays one file that makes no requests."""
    return files(__package__).joinpath("static", "zoom.js").read_text(encoding="utf-8")


def render_page(trace: Trace, facts: TraceFacts | None = None, links: Links = Links(),
                options: RenderOptions = RenderOptions(), torch: TorchSource | None = None) -> str:
    """The old call form of :func:`report_page` (analyses the trace itself)."""
    return report_page(build_report(trace, facts), links, options, torch)


def report_page(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions(),
                torch: TorchSource | None = None) -> str:
    """:func:`report_page_pieces`, whole."""
    return "".join(report_page_pieces(report, links, options, torch))


def report_page_pieces(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions(),
                       torch: TorchSource | None = None) -> Iterator[Markup]:
    """One self-contained file, in pieces made as they are written: opens from disk, no network; a small script zooms
    the timeline, the rest is HTML.

    When the trace counted executed lines, a last section shows them in ``torch``'s source (the installed
    torch, if it is the one that recorded the trace)."""
    trace = report.trace
    title = options.title or " ".join(trace.info.command[-1:]) or "trace"

    def body() -> Iterator[Markup]:
        yield from fragment_pieces(report, links, options)
        yield safe(render_executed(trace, torch))

    return stream("base.html", page=_view(f"{title} — torch.compile trace", links, f"<script>{zoom_script()}</script>",
                                          body()))


@dataclass(frozen=True)
class PageView:
    """What the base layout (templates/base.html) shows: a lone page around its body, in pieces of HTML (one piece
    for a body already made; a trace page's are made as they are written)."""

    title: str
    css: Markup  # our stylesheets: no text from a trace
    body: Iterable[Markup]
    links: Links | None  # for the note on where chapter links go
    script: Markup = Markup("")


def _view(title: str, links: Links | None, script: str, body: Iterable[Markup]) -> PageView:
    """The page's minimal styles, the trace styles and the code colours, around ``body``."""
    return PageView(title, Markup(f"{_PAGE_CSS}{stylesheet()}{code_css()}"), body, links, safe(script))


def page_document(title: str, body: str, links: Links | None, script: str = "") -> str:
    """A lone HTML file around ``body``: the page's minimal styles, the trace styles, the code colours, the site note."""
    return render("base.html", page=_view(title, links, script, (safe(body),)))


def render_site_note(links: Links | None) -> str:
    """Which walkthrough the page's chapter links go to (and how it was found), or why there are none."""
    return render("site_note.html", note=links)
