"""The site's sources (conf.py and docs/): a checkout's, or the copy the wheel carries in walkthrough/_site/."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # conf.py and docs/ beside the package: a clone, or an editable install of one
BUNDLED = PACKAGE / "_site"  # what walkthrough/packaging.py copies into the wheel: conf.py and docs/, same layout


@dataclass(frozen=True)
class SiteSources:
    conf: Path  # the directory holding conf.py (sphinx-build -c)
    docs: Path  # the pages, examples and recordings (sphinx-build's source dir)
    checkout: bool  # True: a clone, whose builds go under build/ as always; False: an installed wheel's copy


def _complete(root: Path) -> bool:
    return (root / "conf.py").is_file() and (root / "docs" / "index.md").is_file()


def site_sources(checkout: Path = CHECKOUT, bundled: Path = BUNDLED) -> SiteSources | None:
    """The checkout when the package runs from one, else the wheel's copy; None when neither is whole."""
    for root, is_checkout in ((checkout, True), (bundled, False)):
        if _complete(root):
            return SiteSources(root, root / "docs", is_checkout)
    return None
