"""The release-compare directive, kept thin: a recorded comparison of one script under two releases, as HTML."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from walkthrough import __version__
from walkthrough.compare.model import ComparisonFormatError, read
from walkthrough.compare.page import PageLinks, render_comparison
from walkthrough.sphinx.directives import WalkthroughError
from walkthrough.sphinx.traces import RAW_CLASS, TorchTrace

COMPARE_DIRECTIVE = "release-compare"


class ReleaseCompare(TorchTrace):
    """``{release-compare} cpu/contextvar_scale-2.13.0-vs-2.14.1/comparison.json``: a comparison recorded with
    ``python -m walkthrough compare``, read from ``<walkthrough_compare>/``; nothing runs.

    :caption: a line under the header
    """

    option_spec = {"caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        path = Path(self.env.srcdir, self.config.walkthrough_compare, self.arguments[0])
        self.env.note_dependency(str(path))
        try:
            comparison = read(path)
        except ComparisonFormatError as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None
        caption = self.options.get("caption") or ""
        html = render_comparison(comparison, PageLinks(chapter_url=self._chapter_url))
        block = nodes.container(classes=["wt-compare-recorded"])
        block += nodes.raw("", html, format="html", classes=[RAW_CLASS])
        if caption:
            block += nodes.paragraph(text=caption, classes=["wt-caption"])
        return [block]


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough.sphinx.traces")  # the trace stylesheet, chapter-link resolution
    app.add_config_value("walkthrough_compare", "_compare", "env", [str])
    app.add_directive(COMPARE_DIRECTIVE, ReleaseCompare)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
