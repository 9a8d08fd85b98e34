"""The version switcher: for one page, the same page in every release built into the site (or that it is not there)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from pathlib import Path

from tracers.tracefile.atomic import write_text_atomic
from walkthrough.releases.catalog import label

SWITCHER_FILE = "releases.json"  # in the output root, beside <release>/ folders


@dataclass(frozen=True)
class Switcher:
    """Which releases one site carries (oldest first) and the pages each has (docnames)."""

    reference: str
    pages: dict[str, frozenset[str]]

    def to_json(self) -> str:
        return json.dumps({"format": 1, "reference": self.reference,
                           "releases": {r: sorted(p) for r, p in self.pages.items()}}, indent=1) + "\n"

    @classmethod
    def read(cls, path: Path) -> Switcher:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["reference"], {r: frozenset(p) for r, p in data["releases"].items()})

    def write(self, path: Path) -> None:
        write_text_atomic(path, self.to_json())


@dataclass(frozen=True)
class SwitchLink:
    release: str
    label: str
    href: str  # relative to the page
    current: bool
    exists: bool  # False: the page is not in that release; href is that release's start page


def links(switcher: Switcher, current: str, docname: str) -> tuple[SwitchLink, ...]:
    """From ``<root>/<current>/<docname>.html`` to the same page (else the start page) of each release."""
    up = "../" * (docname.count("/") + 1)
    out = []
    for release, pages in switcher.pages.items():
        exists = docname in pages
        target = docname if exists else "index"
        out.append(SwitchLink(release, label(release), f"{up}{release}/{target}.html", release == current, exists))
    return tuple(out)


def render(found: tuple[SwitchLink, ...]) -> str:
    """A row of release links, the current one marked; a release without the page says so."""
    items = []
    for link in found:
        if link.current:
            items.append(f'<span class="wt-switch wt-switch-current" aria-current="page">{escape(link.label)}</span>')
        elif link.exists:
            items.append(f'<a class="wt-switch" href="{escape(link.href)}">{escape(link.label)}</a>')
        else:
            items.append(f'<a class="wt-switch wt-switch-absent" href="{escape(link.href)}" '
                         f'title="this page does not exist in torch {escape(link.release)}\'s walkthrough">'
                         f'{escape(link.label)} <span class="wt-muted">(no such page: its start page)</span></a>')
    return (f'<nav class="wt-switcher" aria-label="torch release"><span class="wt-switcher-title">torch release:</span> '
            f'{" ".join(items)}</nav>')


def site_pages(docs: Path, skip: tuple[str, ...] = ("examples",)) -> frozenset[str]:
    """The docnames a build of ``docs`` has: every .md outside ``_`` folders and ``skip`` (conf.py's exclude_patterns)."""
    found = set()
    for path in docs.rglob("*.md"):
        parts = path.relative_to(docs).parts
        if any(part.startswith((".", "_")) for part in parts[:-1]) or parts[0] in skip:
            continue
        found.add(path.relative_to(docs).with_suffix("").as_posix())
    return frozenset(found)
