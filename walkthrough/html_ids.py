"""Ids inside one HTML fragment made unique on its page: each id, and every reference to it, gets a prefix."""

from __future__ import annotations

import re

_ID = re.compile(r'(?<![\w:-])id="([^"]+)"')
# Attributes that name an id of the same fragment: a link to it, or a label, ARIA relation or SVG reference.
_HASH_REF = re.compile(r'(?<![\w:-])((?:xlink:)?href)="#([^"]+)"')
_NAME_REF = re.compile(r'(?<![\w:-])(for|aria-controls|aria-labelledby|aria-describedby)="([^"]+)"')
_URL_REF = re.compile(r"url\(#([\w.-]+)\)")


def fragment_ids(html: str) -> list[str]:
    """The ids the fragment defines, in order, repeats included."""
    return _ID.findall(html)


def scope_ids(html: str, prefix: str) -> str:
    """``html`` with every id it defines prefixed, and the references to those ids with them; references to ids it
    does not define (the page's own, another block's) are left alone. A fragment without ids comes back as it is.

    A recorded trace's page part names its own ids (``wt-icicle-0``, the zoomed views of "compile time by your
    code"); two such parts on one page, or one in a CPU and a CUDA tab, would repeat them, and a link would open
    the first one's view."""
    ids = set(fragment_ids(html))
    if not ids:
        return html

    def hash_ref(match: re.Match[str]) -> str:
        return f'{match[1]}="#{prefix}{match[2]}"' if match[2] in ids else match[0]

    def name_ref(match: re.Match[str]) -> str:
        names = match[2].split()
        if not any(name in ids for name in names):
            return match[0]
        return f'{match[1]}="' + " ".join(prefix + name if name in ids else name for name in names) + '"'

    html = _ID.sub(lambda match: f'id="{prefix}{match[1]}"', html)
    html = _HASH_REF.sub(hash_ref, html)
    html = _NAME_REF.sub(name_ref, html)
    return _URL_REF.sub(lambda match: f"url(#{prefix}{match[1]})" if match[1] in ids else match[0], html)
