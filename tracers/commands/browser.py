"""Opening a page in a browser, or saying in one line that scripts can match that none is here."""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path

NO_BROWSER = 3  # the exit status when a page was asked to open and no browser is here (1: failed, 2: bad input)
NO_BROWSER_LINE = "no browser: printed the path instead"


def show(page: Path) -> int:
    """0 opened in a browser; NO_BROWSER when none is here (the page's path is printed already by the caller)."""
    if webbrowser.open(page.resolve().as_uri()):
        return 0
    print(f"{NO_BROWSER_LINE} (set $BROWSER to one to open it)", file=sys.stderr)
    return NO_BROWSER
