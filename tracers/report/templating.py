"""The pages' Jinja2 environment: templates in tracers/report/templates, every value escaped as ``esc`` does."""

from __future__ import annotations

import re
from functools import cache

from jinja2 import ChoiceLoader, Environment, PackageLoader
from markupsafe import Markup

from .text import esc

# The pages carry no newlines between their elements (the outputs stay byte for byte what they were), yet a
# template reads best one element a line: a line break and the indentation after it are layout, not output.
# Text that must hold a newline says so: ``{{ "\n" }}``.
_LAYOUT = re.compile(r"\n[ \t]*")


class _Loader(PackageLoader):
    def get_source(self, environment: Environment, template: str):  # noqa: ANN201 - Jinja2's triple
        source, filename, uptodate = super().get_source(environment, template)
        return _LAYOUT.sub("", source), filename, uptodate


def _escaped(value: object) -> object:
    # Jinja2 escapes quotes as &#34; and &#39;, ``esc`` (html.escape) as &quot; and &#x27;: every value goes
    # through ``esc`` here, so a templated part and an f-string part spell the same text the same way.
    return value if isinstance(value, Markup) else Markup(esc(value))


@cache
def environment(package: str = __package__) -> Environment:
    """``package``'s templates/, then ours (the layout, the shared macros): a walkthrough page extends base.html."""
    loaders = [_Loader(name, "templates") for name in dict.fromkeys((package, __package__))]
    return Environment(loader=ChoiceLoader(loaders), autoescape=True, finalize=_escaped,
                       keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def render(name: str, **values: object) -> str:
    """The template ``name`` filled with ``values`` (a view model's fields)."""
    return environment().get_template(name).render(**values)


def render_from(package: str, name: str, **values: object) -> str:
    """:func:`render` for a template of another package (the walkthrough's pages) over the same layout and macros."""
    return environment(package).get_template(name).render(**values)


def safe(html: str) -> Markup:
    """HTML built from escaped pieces (SVG geometry, another part's markup), passed into a template as is."""
    return Markup(html)
