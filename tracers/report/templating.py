"""The pages' Jinja2 environment: templates in tracers/report/templates, every value escaped as ``esc`` does."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from functools import cache

from jinja2 import BytecodeCache, ChoiceLoader, Environment, FileSystemBytecodeCache, PackageLoader
from jinja2.bccache import Bucket
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


def value_html(value: object) -> str:
    """A value as a template writes ``{{ value }}``: markup as it is, anything else escaped (parts built in Python)."""
    return value if isinstance(value, Markup) else esc(value)


class _Compiled(FileSystemBytecodeCache):
    """Jinja2's cache of compiled templates (in the user's own 0700 folder under the temp directory, keyed by the
    template's source and the Python version): compiling the page's templates took 0.14 s of every report's start.
    Only a regular file is read; one that cannot be read or written is compiled again, never an error."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            if stat.S_ISREG(os.stat(self._get_cache_filename(bucket)).st_mode):
                super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - absent, unreadable, cut short or garbled (pickle and marshal raise
            bucket.reset()  # many kinds): a cache must never cost the page, the template is compiled afresh

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache() -> BytecodeCache | None:
    try:
        return _Compiled()
    except (OSError, RuntimeError):  # no temp directory of the user's own: templates compiled each run
        return None


@cache
def environment(package: str = __package__) -> Environment:
    """``package``'s templates/, then ours (the layout, the shared macros): a walkthrough page extends base.html."""
    loaders = [_Loader(name, "templates") for name in dict.fromkeys((package, __package__))]
    return Environment(loader=ChoiceLoader(loaders), autoescape=True, finalize=_escaped,
                       keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                       bytecode_cache=_bytecode_cache())


def render(name: str, **values: object) -> str:
    """The template ``name`` filled with ``values`` (a view model's fields)."""
    return environment().get_template(name).render(**values)


STREAM_PIECE = 1 << 16  # characters: a streamed page is handed on in pieces of about this size


def stream(name: str, **values: object) -> Iterator[Markup]:
    """:func:`render`, made as it is read: the page's large parts are written out piece by piece, never held whole.
    Pieces are joined to about STREAM_PIECE characters (each is HTML, passed on as is by an enclosing template)."""
    return joined(environment().get_template(name).generate(**values))


def joined(html: Iterable[str]) -> Iterator[Markup]:
    """Pieces of HTML (escaped already) handed on joined, about STREAM_PIECE characters at a time."""
    pending: list[str] = []
    held = 0
    for piece in html:
        pending.append(piece)
        held += len(piece)
        if held >= STREAM_PIECE:
            yield Markup("".join(pending))
            pending, held = [], 0
    if pending:
        yield Markup("".join(pending))


def render_from(package: str, name: str, **values: object) -> str:
    """:func:`render` for a template of another package (the walkthrough's pages) over the same layout and macros."""
    return environment(package).get_template(name).render(**values)


def safe(html: str) -> Markup:
    """HTML built from escaped pieces (SVG geometry, another part's markup), passed into a template as is."""
    return Markup(html)
